/* The subcommands of samsim; each takes the arguments after its name and
 * returns the process exit status. */
#ifndef SAMSIM_COMMANDS_H
#define SAMSIM_COMMANDS_H

int cmd_blocks(int argc, char **argv);
int cmd_compile(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_render(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_template(int argc, char **argv);
int cmd_sweep(int argc, char **argv);

#endif
