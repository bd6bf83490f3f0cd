/* SPDX-License-Identifier: MIT */
/* The subcommands of the cisp command; each lives in tools/cmd_<name>.c. */
#ifndef CISP_TOOLS_COMMANDS_H
#define CISP_TOOLS_COMMANDS_H

/*
 * A subcommand gets argv starting at its own name and returns the process
 * exit status: 0 success, 1 failure, 2 bad usage. Every subcommand prints
 * its usage for --help (and exits 0).
 */
typedef int (*cisp_command_fn)(int argc, char **argv);

int cmd_bench(int argc, char **argv);
int cmd_develop(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_demosaic(int argc, char **argv);
int cmd_params(int argc, char **argv);
int cmd_iq(int argc, char **argv);
int cmd_conform(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_tuning(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_webcam(int argc, char **argv);

#endif
