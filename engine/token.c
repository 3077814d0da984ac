#include "token.h"

#include <stdlib.h>
#include <string.h>

#include "../formats/text_out.h"

const char *token_str(token t, char *buf)
{
    switch (t.kind) {
    case TOKEN_CRD:
        snprintf(buf, 32, "%lld", (long long)t.i);
        break;
    case TOKEN_VAL:
        text_format_double(buf, t.v);
        break;
    case TOKEN_STOP:
        snprintf(buf, 32, "S%d%.*s", t.level, t.hollow, "''''''''''''''''''''''''");
        break;
    default:
        snprintf(buf, 32, "%s", t.kind == TOKEN_EMPTY ? "N" : t.kind == TOKEN_DONE ? "D"
                                : t.kind == TOKEN_REPEAT ? "R" : "S");
    }
    return buf;
}

int token_parse(const char *s, token *t)
{
    if (s[0] == 'S' && s[1] >= '0' && s[1] <= '9') {
        size_t hollow = strspn(s + 2, "'");
        if (s[2 + hollow] != '\0' || hollow > (size_t)(s[1] - '0'))
            return -1;
        *t = token_stop(s[1] - '0');
        t->hollow = (uint8_t)hollow;
        return 0;
    }
    if (!strcmp(s, "N") || !strcmp(s, "D") || !strcmp(s, "R") || !strcmp(s, "S")) {
        *t = s[0] == 'N' ? token_empty() : s[0] == 'D' ? token_done()
             : s[0] == 'R' ? token_repeat() : token_repstop();
        return 0;
    }
    char *end;
    if (strpbrk(s, ".eE")) {
        double v = strtod(s, &end);
        *t = token_val(v);
    } else {
        long long i = strtoll(s, &end, 10);
        *t = token_crd(i);
    }
    return *s && *end == '\0' ? 0 : -1;
}
