/* gnuplot as samsim's figures use it: found on PATH, handed its script on
 * standard input without a shell (so no user text reaches a shell, and
 * names reach gnuplot only as the string literals written here), its
 * picture written under a temporary name and renamed into place only when
 * gnuplot succeeds. */
#ifndef SAMSIM_GNUPLOT_H
#define SAMSIM_GNUPLOT_H

#include <stdio.h>

#include "../common/error.h"

/* Writes the script of a figure on f. */
typedef void gnuplot_script(FILE *f, const void *figure);

/* Has gnuplot run the script script writes of figure, its picture going
 * to out ("-": standard output), whole or not at all. who names the
 * command in the errors not about out ("plot: gnuplot not found"). */
int gnuplot_draw(const char *out, const char *who, gnuplot_script *script, const void *figure,
                 sam_error *err);

/* s as a gnuplot single-quoted string, quotes included. */
void gnuplot_put_string(FILE *f, const char *s);

/* The inside of such a string: a quote doubled, a line break (which would
 * end the command) or other control character a blank. */
void gnuplot_put_quoted(FILE *f, const char *s);

/* The terminal for out's format (graph_render_format: pngcairo or svg),
 * width x height pixels, without enhanced text, which would read a name's
 * _ and ^ as sub- and superscripts. */
void gnuplot_put_terminal(FILE *f, const char *out, int width, int height);

#endif
