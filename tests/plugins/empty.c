/* SPDX-License-Identifier: MIT */
/* A shared object that is not a vendor plugin: it lacks the plugin symbol. */
int not_a_plugin(void);

int not_a_plugin(void)
{
	return 42;
}
