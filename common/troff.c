#include "troff.h"

void troff_text(FILE *f, const char *text)
{
    int line_start = 1;
    for (const char *p = text; *p; p++) {
        if (line_start && (*p == '.' || *p == '\''))
            fputs("\\&", f);
        if (*p == '\\')
            fputs("\\e", f);
        else if (*p == '-')
            fputs("\\-", f);
        else
            fputc(*p, f);
        line_start = *p == '\n';
    }
}
