/* The subcommands of samsim; each takes the arguments after its name and
 * returns the process exit status. */
#ifndef SAMSIM_COMMANDS_H
#define SAMSIM_COMMANDS_H

#include "../common/error.h"
#include "options.h"

int cmd_blocks(int argc, char **argv);
int cmd_compile(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_render(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_timeline(int argc, char **argv);
int cmd_template(int argc, char **argv);
int cmd_sweep(int argc, char **argv);

/* Each command as declared in its file, with its options. */
extern const cli_command cmd_blocks_command, cmd_compile_command, cmd_convert_command,
    cmd_info_command, cmd_gen_command, cmd_run_command, cmd_stats_command, cmd_render_command,
    cmd_plot_command, cmd_timeline_command, cmd_template_command, cmd_sweep_command;

/* What compile and gen would refuse of these arguments, without writing
 * anything and without their -o, which a sweep gives its steps: a sweep
 * spec is checked with them before any job runs. 0, or -1 with err set. */
int cmd_compile_check(int argc, char **argv, sam_error *err);
int cmd_gen_check(int argc, char **argv, sam_error *err);

#endif
