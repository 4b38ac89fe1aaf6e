/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * optdecl.h - a tool's options declared once, in one table: each entry is
 * the option's argp spelling (key, long name, argument name, help line,
 * group) and, for a simple option, what its value is (a kind with a range
 * or a value-to-name table) and where it goes (the offset of a field in
 * the tool's options struct). From that table
 *
 *   optdecl_argp()  makes the struct argp_option array argp shows in --help
 *                   and parses by, so --help and parsing cannot disagree;
 *   optdecl_take()  converts, range-checks and stores a simple option's
 *                   value, with one error format for every kind:
 *                       bad WHAT 'ARG': RANGE
 *                   (RANGE given, or made from the entry's range or names).
 *
 * Entries are written positionally up to the group, then by designator
 * (.kind = ..., OPTD_FIELD(), .min = ...). An entry of kind OPTD_CUSTOM is shown in --help like the others but
 * left to the tool's parser (optdecl_take says ARGP_ERR_UNKNOWN): a tool's
 * parse_opt holds only its genuinely special options.
 */
#ifndef RDSTK_OPTDECL_H
#define RDSTK_OPTDECL_H

#include <argp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <wire/wire.h>

enum optd_kind {
	OPTD_CUSTOM,   /* the tool's parser takes it */
	OPTD_HEADER,   /* a group's header line in --help: doc only */
	OPTD_FLAG,     /* no argument: a bool field becomes true */
	OPTD_STR,      /* the argument as given: a const char * field */
	OPTD_UINT,     /* an unsigned number (0x and 0 prefixes), [min, max] */
	OPTD_COUNT,    /* a decimal count with K or M (x1024), [min, max] */
	OPTD_SIZE,     /* bytes with K, M or G (powers of 1024), [min, max] */
	OPTD_SECONDS,  /* decimal seconds, [fmin, fmax]: a double field */
	OPTD_ENUM,     /* a name of |names|: its value into an unsigned field */
	OPTD_ADDR,     /* an IPv4 or IPv6 address: a struct rdsu_addr field */
};

struct optdecl {
	/* argp's */
	int key;
	const char *name, *arg, *doc;
	int flags, group;
	/* the value */
	enum optd_kind kind;
	size_t off, size;           /* the field: offset in the struct, bytes */
	uint64_t min, max;          /* OPTD_UINT, _COUNT, _SIZE */
	double fmin, fmax;          /* OPTD_SECONDS */
	const struct wire_tok *names;  /* OPTD_ENUM, ends with a NULL name */
	const char *what;           /* the error's WHAT: "count", "interval" */
	const char *range;          /* the error's RANGE; NULL: made up */
	const char *unit;           /* after a made-up number range: " seconds" */
	bool has_seen;              /* when given: the bool at |seen| becomes true, */
	size_t seen;
	unsigned seen_bit;          /* or, if not 0, this bit is set in the
				     * unsigned at |seen| */
};

/* The field |f| of struct |T| that an entry writes. */
#define OPTD_FIELD(T, f) .off = offsetof(T, f), .size = sizeof(((T *)0)->f)
/* ... and the bool |f| that says the option was given. */
#define OPTD_SEEN(T, f) .has_seen = true, .seen = offsetof(T, f)
/* ... or the bit |b| of the unsigned |f| that says so. */
#define OPTD_SEEN_BIT(T, f, b) .has_seen = true, .seen = offsetof(T, f), .seen_bit = (b)

/* The generations a --kver takes ("6", "7"), for an OPTD_ENUM into an
 * enum wire_kver field. */
extern const struct wire_tok optdecl_kver_toks[];

/* The length of a table, and of the argp array made from it (end mark). */
#define OPTD_N(t) (sizeof(t) / sizeof((t)[0]))

/*
 * optdecl_check() - is |t| (|n| entries) well made: every number field 1,
 * 2, 4 or 8 bytes and wide enough for its max (and |names|' values), a
 * seconds field a double, a string field a pointer, min <= max, an enum
 * with names, a WHAT for every kind that can be refused. Return: NULL, or
 * the first fault, as a sentence naming the option.
 */
const char *optdecl_check(const struct optdecl *t, size_t n);

/*
 * optdecl_argp() - |t|'s argp options in |dst| (room for n + 1: the end
 * mark). A table that optdecl_check() refuses is a programming error: it
 * is said on stderr and the program aborts.
 */
void optdecl_argp(const struct optdecl *t, size_t n, struct argp_option *dst);

/* optdecl_find() - the entry with |key| that optdecl_take() converts, or
 * NULL (not in |t|, or a custom, header). */
const struct optdecl *optdecl_find(const struct optdecl *t, size_t n, int key);

/*
 * optdecl_set() - |arg| converted as |d| says, range-checked and stored
 * in the field of |base|. Return: 0; -1 (refused: the field is as it was,
 * and optdecl_error() says why).
 */
int optdecl_set(const struct optdecl *d, void *base, const char *arg);

/* optdecl_error() - the refusal of |arg| for |d|: "bad WHAT 'ARG': RANGE",
 * in |buf| (|len| bytes, cut to fit). Return: buf. */
const char *optdecl_error(const struct optdecl *d, const char *arg, char *buf, size_t len);

/*
 * optdecl_take() - an argp parser's first step: |key| with |arg| stored
 * in |base| when |t| declares it simple; a refused value is a usage error
 * (argp_error). Return: 0; ARGP_ERR_UNKNOWN (the tool's own to take).
 */
error_t optdecl_take(const struct optdecl *t, size_t n, void *base, int key, const char *arg,
		     struct argp_state *st);

/* The most argp children a tool lists (rio_opt, out_opt, src_opt, ...). */
#define OPTD_CHILDREN 4

/* A tool's command line: its argp and its table. */
struct optdecl_cmd {
	/* The tool's argp (options: NULL, made from the table). Its parser
	 * sees only what the table leaves: OPTD_CUSTOM options, operands,
	 * ARGP_KEY_END; its st->input is the tool's struct. An operand it
	 * does not take is refused as "unexpected argument 'ARG'". */
	const struct argp *argp;
	const struct optdecl *t;
	size_t n;
	struct argp_option *dst;      /* room for n + 1: the options argp shows */
	/* what each of argp->children is handed at ARGP_KEY_INIT, in order */
	void *child_inputs[OPTD_CHILDREN];
	/* at ARGP_KEY_END, after the tool's parser: what the options say
	 * together (|input| is the tool's struct); NULL: nothing */
	void (*end)(void *input, struct argp_state *st);
	char *name;                   /* the program in messages; NULL: its short name */
	unsigned flags;               /* argp_parse's */
};

/*
 * optdecl_parse() - a tool's command line into |input|, set up alike in
 * every tool: argp's options made from the table, the table's simple
 * options converted and stored (optdecl_take) before the tool's parser
 * sees anything, the children's inputs handed over, a usage error exits
 * with status 2, argp and getopt name the program |c->name|.
 * Return: argp_parse's.
 */
error_t optdecl_parse(const struct optdecl_cmd *c, int argc, char **argv, void *input);

#endif /* RDSTK_OPTDECL_H */
