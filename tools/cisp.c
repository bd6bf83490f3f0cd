/* SPDX-License-Identifier: MIT */
/* cisp: the command-line front end. One binary, one subcommand per job. */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <cisp/output_file.h>

#include "commands.h"
#include "options.h"

static const struct {
	const char *name;
	cisp_command_fn fn;
	const char *summary;
} commands[] = {
	{ "bench", cmd_bench, "speed of every stage and the whole pipeline, reference against optimised" },
	{ "develop", cmd_develop, "run the full ISP pipeline on raw frames (camera raw files, dumps, mosaics)" },
	{ "convert", cmd_convert, "write a raw frame (dump, mosaic, camera raw) as a DNG" },
	{ "demosaic", cmd_demosaic, "demosaic a Bayer mosaic only (for measuring quality and speed)" },
	{ "params", cmd_params, "encode, decode and validate ISP parameter buffers" },
	{ "iq", cmd_iq, "measure image quality (virtual camera or chart photograph), write a report" },
	{ "conform", cmd_conform, "check an ISP backend against a conformance profile" },
	{ "calibrate", cmd_calibrate, "a tuning file from darks, flats, charts and edges, or a virtual lightbox session" },
	{ "tuning", cmd_tuning, "import a Raspberry Pi or rkisp1 tuning as a cisp tuning file" },
	{ "info", cmd_info, "what an ISP instance accepts: ABI versions, canonical and vendor blocks" },
	{ "list", cmd_list, "list the cameras: backend, model, tuning, modes" },
	{ "run", cmd_run, "stream a camera through the ISP and the 3A loop; video, PNG, metadata log" },
	{ "webcam", cmd_webcam, "feed a v4l2loopback webcam from a camera at a steady frame rate" },
};

#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *out)
{
	fprintf(out, "usage: cisp COMMAND [OPTIONS...]\n\ncommands:\n");
	for (size_t i = 0; i < N_COMMANDS; i++)
		fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\n'cisp help COMMAND' (or 'cisp COMMAND --help') prints the options of a command.\n"
		     "Memory is limited to CISP_MAX_MEMORY (default 2G); outputs appear only when complete and\n"
		     "replace nothing without --force (docs/cli.md).\n");
}

/* SIGINT, SIGTERM, SIGHUP: no hidden output file is left behind, then the signal's own end. */
static void on_signal(int sig)
{
	sigset_t set;

	cisp_output_file_remove_temporaries();
	/* Die of the signal now, not when the handler returns and the other threads have run on. */
	signal(sig, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
}

static void handle_signals(void)
{
	static const int stopping[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(stopping) / sizeof(stopping[0]); i++)
		sigaddset(&sa.sa_mask, stopping[i]);
	for (size_t i = 0; i < sizeof(stopping) / sizeof(stopping[0]); i++) {
		struct sigaction old;

		/* A signal ignored by whoever started us (nohup, a background job) stays ignored. */
		if (sigaction(stopping[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
			sigaction(stopping[i], &sa, NULL);
	}
	/* Over a file size limit (ulimit -f), a write fails with EFBIG and is reported, instead of a core dump. */
	signal(SIGXFSZ, SIG_IGN);
}

static int run_command(const char *name, int argc, char **argv)
{
	for (size_t i = 0; i < N_COMMANDS; i++) {
		if (!strcmp(name, commands[i].name)) {
			command_name = commands[i].name;
			/* Commands report refused options themselves, in one line (bad_option()). */
			opterr = 0;
			return commands[i].fn(argc, argv);
		}
	}
	fprintf(stderr, "cisp: unknown command '%s'; 'cisp help' lists the commands\n", SHOWN(name));
	return 2;
}

int main(int argc, char **argv)
{
	handle_signals();
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || (!strcmp(argv[1], "help") && argc == 2)) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("cisp %s\n", CISP_VERSION);
		return 0;
	}
	/* cisp help COMMAND is cisp COMMAND --help. */
	if (!strcmp(argv[1], "help")) {
		char *help[] = { argv[2], "--help", NULL };

		if (argc > 3) {
			fprintf(stderr, "cisp help: one command at a time; 'cisp help' lists them\n");
			return 2;
		}
		return run_command(argv[2], 2, help);
	}
	return run_command(argv[1], argc - 1, argv + 1);
}
