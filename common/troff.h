/* Text for troff, the man page's language: backslashes and hyphens
 * escaped, and a line that would start with a control character guarded,
 * so that any text a declaration holds reads as it was written. */
#ifndef SAMSIM_TROFF_H
#define SAMSIM_TROFF_H

#include <stdio.h>

void troff_text(FILE *f, const char *text);

#endif
