/* Numbers as the project's text formats write them: decimal, with an
 * optional sign, fraction and exponent. strtod alone also takes
 * hexadecimal, "inf", "nan" and leading blanks, which no samsim file
 * means and which would turn a typo into a value. */
#ifndef SAMSIM_NUMBER_H
#define SAMSIM_NUMBER_H

/* Parses all of s as a finite decimal number into *out; returns 0, or -1
 * (with *out untouched) when s is anything else or out of range. */
int number_parse(const char *s, double *out);

/* The same for a whole number from min to max (decimal digits only, no
 * fraction or exponent, a leading '-' only when min < 0). */
int number_parse_whole(const char *s, long long min, long long max, long long *out);

#endif
