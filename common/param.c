#include "param.h"

#include <math.h>
#include <string.h>

#include "number.h"
#include "troff.h"

const param *param_find(const param *list, const char *name, size_t len)
{
    for (const param *p = list; p && p->name; p++)
        if (strlen(p->name) == len && !strncmp(p->name, name, len))
            return p;
    return NULL;
}

int param_accepts(const param *p, double v)
{
    return v >= p->min && v <= p->max && (!p->whole || v == floor(v));
}

int param_parse(const param *p, const char *text, double *v, char *why, size_t size)
{
    if (!number_parse(text, v) && param_accepts(p, *v))
        return 0;
    snprintf(why, size, "%s = %s is not a%s number %.10g..%.10g (%s)", p->name, text,
             p->whole ? " whole" : "", p->min, p->max, p->unit);
    return -1;
}

void param_range(const param *p, char *buf, size_t size)
{
    snprintf(buf, size, "default %.10g, %s%.10g to %.10g", p->def, p->whole ? "a whole number " : "",
             p->min, p->max);
}

/* text at indent, in lines of at most 72 columns after it. */
static void print_wrapped(FILE *f, const char *text, int indent)
{
    while (*text) {
        size_t n = strlen(text), cut = n;
        if (n > 72)
            for (cut = 72; cut > 0 && text[cut] != ' '; cut--)
                ;
        if (cut == 0)
            cut = n;
        fprintf(f, "%*s%.*s\n", indent, "", (int)cut, text);
        text += cut + (text[cut] == ' ');
    }
}

void param_print_list(FILE *f, const param *list, int indent)
{
    int width = 15;
    for (const param *p = list; p && p->name; p++)
        if ((int)strlen(p->name) > width)
            width = (int)strlen(p->name);
    for (const param *p = list; p && p->name; p++) {
        char range[128];
        param_range(p, range, sizeof range);
        fprintf(f, "%*s%-*s %s; %s\n", indent, "", width, p->name, p->unit, range);
        print_wrapped(f, p->about, indent + width + 1);
    }
}

void param_print_man(FILE *f, const param *list)
{
    fputs(".RS\n.PD 0\n", f);
    for (const param *p = list; p && p->name; p++) {
        char range[128];
        param_range(p, range, sizeof range);
        fputs(".TP 16\n.B ", f);
        troff_text(f, p->name);
        fputc('\n', f);
        troff_text(f, p->unit);
        fputs("; ", f);
        troff_text(f, range);
        fputs(": ", f);
        troff_text(f, p->about);
        fputc('\n', f);
    }
    fputs(".PD\n.RE\n", f);
}

void param_print_markdown(FILE *f, const param *list)
{
    for (const param *p = list; p && p->name; p++)
        fprintf(f, "| %s | %s | %.10g | %s%.10g to %.10g | %s |\n", p->name, p->unit, p->def,
                p->whole ? "whole, " : "", p->min, p->max, p->about);
}
