/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * out.h - the tools' output layer: each field of a record is described once
 * (struct out_field: key, type, text level, value names) and one sequence
 * of calls renders it as labelled text lines ("    key value, key value",
 * rdsdump's -v and -vv) or as one JSON object. The shape follows
 * iproute2's print_*(PRINT_ANY, key, fmt, value) (include/json_print.h);
 * unlike there the fields are data, so a tool can list every field it can
 * print, with its type and value names, without printing anything.
 *
 * The calls come in text order. JSON keys come in the order of the field
 * table: a record has the keys its calls set (out_null() sets JSON null and
 * prints no text) in table order, whatever order the text wants; a key set
 * twice keeps its last value.
 *
 * JSON is written as the calls come, into a buffer that holds one record
 * (grown to the largest record and kept): values are not objects in a tree
 * but their text. Calls in table order only append; an object whose calls
 * came out of order is put in order once when it closes, by moving the
 * text of its members. The serialisation is json-c's (0.16) byte for byte,
 * which the tools used before and which the golden files hold: '/' escaped
 * unless OUT_JSON_NOSLASH, control bytes as \u00xx, other bytes as they
 * are; OUT_DOUBLE as "%.17g" with ".0" added to a whole number, NaN and
 * Infinity as words.
 *
 * Text is gathered in a buffer and written with one fwrite per record (or
 * per OUT_BUF bytes), so the same buffer serves a tool's free-form lines
 * (out_put_*()).
 */
#ifndef OUT_H
#define OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <wire/wire.h>

#ifdef __cplusplus
extern "C" {
#endif

enum out_type {
	OUT_U64,    /* decimal; JSON unsigned */
	OUT_I64,    /* decimal; JSON signed */
	OUT_HEX,    /* text 0x and at least .digits digits; JSON a number */
	OUT_BOOL,   /* true, false */
	OUT_STR,    /* one word; NULL is JSON null and text "?", "" text "" */
	OUT_QUOTED, /* free text: in double quotes in text */
	OUT_BYTES,  /* hex digits, no separators, in both */
	OUT_DOUBLE, /* text %.{digits}f; JSON %.17g (json-c's double) */
	OUT_FIXED,  /* a double with .digits decimals in both */
	OUT_ENUM,   /* a number; text adds its name from .names */
	OUT_FLAGS,  /* bits; text hex and [NAME|NAME] from .names */
	OUT_OBJECT, /* nested object of .sub's fields; without .sub a map
		     * (out_member_u64()) */
	OUT_ARRAY,  /* of objects (.sub), or of names, strings, numbers or
		     * booleans joined by .sep in text */
};

/* How OUT_ENUM writes the name after the number in text. */
enum out_name_style {
	OUT_NAME_WORD,  /* "op 0 RESOLVE" */
	OUT_NAME_PAREN, /* "rej_reason 28 (consumer)" */
};

struct out_group;

struct out_field {
	const char *key;      /* JSON key, and text label */
	enum out_type type;
	uint8_t level;        /* text shows it from this -v count on (1 -v,
			       * 2 -vv); 0: JSON only */
	uint8_t digits;       /* OUT_HEX, OUT_FLAGS: least hex digits;
			       * OUT_DOUBLE, OUT_FIXED: decimals */
	uint8_t style;        /* OUT_ENUM: enum out_name_style */
	char sep;             /* OUT_ARRAY of names: text separator */
	const char *label;    /* text label when it is not the key (an array
			       * element naming itself after its array) */
	const struct wire_tok *names; /* OUT_ENUM, OUT_FLAGS, OUT_ARRAY of names */
	const char *unknown;  /* OUT_ENUM text name of a value not in .names;
			       * NULL: the number alone */
	const struct out_group *sub; /* OUT_OBJECT, OUT_ARRAY of objects */
};

/* The fields of one kind of object (a record type, a nested object). */
struct out_group {
	const char *name;
	const struct out_field *f;
	size_t n;
};

#define OUT_GROUP(nm, fields) \
	{ .name = (nm), .f = (fields), .n = sizeof(fields) / sizeof((fields)[0]) }

enum out_mode {
	OUT_TEXT, /* labelled field lines */
	OUT_JSON, /* one object a record, a line each */
};

/* JSON layout (out_init()'s |json_flags|): json-c's PLAIN (0), SPACED,
 * PRETTY and NOSLASHESCAPE. */
enum {
	OUT_JSON_SPACED = 1,  /* "{ "a": 1, "b": [ 2 ] }" */
	OUT_JSON_PRETTY = 2,  /* a member a line, indented by two spaces */
	OUT_JSON_NOSLASH = 4, /* '/' in strings as it is, not "\/" */
};

#define OUT_BUF 8192
#define OUT_DEPTH 6

struct out_frame {
	const struct out_group *g;
	const struct out_field *arr; /* array frame: the array's field */
	size_t start;                /* JSON: offset of its '{' or '[' */
	size_t m0;                   /* JSON: its first entry in out.mem */
	size_t mem;                  /* JSON: its entry in the parent's members;
				      * SIZE_MAX: an array element or the record */
	int last;                    /* JSON: highest field id set */
	bool sorted;                 /* JSON: members in table order, each once */
	bool first;                  /* nothing in it yet */
};

/* JSON: a member of an open object, as text in out.jb. */
struct out_mem {
	unsigned id;  /* field id; a map's keys count on from the group's end */
	bool obj;     /* the value is an object (out_obj_open() enters it again) */
	bool dead;    /* moved or replaced: left out when the object closes */
	size_t start; /* the '"' of its key */
	size_t val;   /* its value */
	size_t end;   /* past its value */
};

/* Caller-owned; out_init() fills it, out_fini() frees what it holds. */
struct out {
	FILE *f;
	enum out_mode mode;
	int verbose;          /* text: fields of level 1..verbose show */
	int json_flags;       /* OUT_JSON_* */
	const char *indent;   /* text: before the first field of a line */
	bool open;            /* text: a field line is open */
	bool err;             /* JSON: no memory for the record (out_take()
			       * gives NULL; out_end() writes nothing) */
	bool line;            /* text: fields go on a one-line form */
	char kv;              /* one-line form: between label and value */
	int depth;
	struct out_frame st[OUT_DEPTH];
	char *jb;             /* JSON: the record's text */
	size_t jn, jcap;
	struct out_mem *mem;  /* JSON: members of the open objects, innermost last */
	size_t nmem, capmem;
	size_t n;
	char b[OUT_BUF];
};

/*
 * out_init() - |o| writes to |f| in |mode|; JSON laid out by |json_flags|
 * (OUT_JSON_*), text field lines start with "    ". out_fini() flushes
 * and frees the record buffers.
 */
void out_init(struct out *o, FILE *f, enum out_mode mode, int verbose, int json_flags);
void out_fini(struct out *o);

/* out_new() - a struct out on the heap (it holds OUT_BUF bytes, too much
 * for some stacks), out_init()'d; NULL without memory. out_free() is
 * out_fini() and free(); NULL is fine. */
struct out *out_new(FILE *f, enum out_mode mode, int verbose, int json_flags);
void out_free(struct out *o);

static inline bool out_is_json(const struct out *o)
{
	return o->mode == OUT_JSON;
}

/*
 * out_begin() - start a record of group |g|; out_end() finishes it (JSON:
 * the object and a newline; text: ends the open line) and writes the text
 * buffer out.
 */
void out_begin(struct out *o, const struct out_group *g);
void out_end(struct out *o);

/*
 * out_take() - JSON: finish the record as out_end() does, but hand its
 * text (compact, '/' as |o|'s flags say; malloc'd, the caller frees it) to
 * the caller instead of writing it; NULL in text, or without memory. For
 * documents put together from parts made at different times (out_json(),
 * out_list_add()).
 */
char *out_take(struct out *o);

/* Field |id| of the innermost group. Text shows it only at its level. */
void out_u64(struct out *o, unsigned id, uint64_t v);
void out_i64(struct out *o, unsigned id, int64_t v);
void out_hex(struct out *o, unsigned id, uint64_t v);
void out_bool(struct out *o, unsigned id, bool v);
void out_str(struct out *o, unsigned id, const char *v);
void out_bytes(struct out *o, unsigned id, const uint8_t *p, size_t len);
void out_double(struct out *o, unsigned id, double v);
/* OUT_ENUM, OUT_FLAGS: the number, and in text its names. */
void out_enum(struct out *o, unsigned id, uint64_t v);
void out_flags(struct out *o, unsigned id, uint64_t v);
/* JSON null; no text. */
void out_null(struct out *o, unsigned id);
/* JSON: the compact JSON text |json| (from out_take() or out_list_text();
 * NULL: null) as the field's value, laid out as |o|'s flags say; text:
 * nothing. */
void out_json(struct out *o, unsigned id, const char *json);

/*
 * A list of compact JSON texts (out_take()'s) that becomes an array for
 * out_json(): zeroed to start, out_list_add() each part (NULL marks the
 * list failed), out_list_text() "[a,b]" (NULL when failed or without
 * memory), out_list_free().
 */
struct out_list {
	char *s;
	size_t n, cap;
	bool err;
};
void out_list_add(struct out_list *l, const char *json);
const char *out_list_text(struct out_list *l);
void out_list_free(struct out_list *l);

/* out_write_json() - the compact JSON text |json| on a line of its own,
 * laid out as |o|'s flags say; for a document that is not one record. */
void out_write_json(struct out *o, const char *json);

/*
 * Nested values. out_obj_open() enters the object of field |id| (entering
 * it again later adds to the same object); out_arr_open() starts the array
 * of field |id|; out_elem_obj() adds an object element to the innermost
 * array and enters it; out_close() leaves the innermost of them. In text an
 * object's fields print like any other; an array of names prints as its
 * label and the elements joined by its separator, an array of objects
 * prints only what its elements print.
 */
void out_obj_open(struct out *o, unsigned id);
void out_arr_open(struct out *o, unsigned id);
void out_elem_obj(struct out *o);
void out_elem_str(struct out *o, const char *s);
void out_elem_u64(struct out *o, uint64_t v);
void out_elem_bool(struct out *o, bool v);
/* An element named by the array's .names: its name, or its number. */
void out_elem_name(struct out *o, uint64_t v);
/*
 * out_member_u64() - a key of the caller's into the innermost object, for
 * an OUT_OBJECT field without .sub (a map: names to counts), in call
 * order; each key once (a map's keys are not looked up). JSON only.
 */
void out_member_u64(struct out *o, const char *key, uint64_t v);
void out_close(struct out *o);

/*
 * out_line() - text: from now on (|on|) a field is " label" |kv| "value" on
 * the line being written, whatever its -v level (JSON-only ones stay out):
 * the one-line forms (rdsdump's
 * " seq 5", rdsping's " seq=5") use the fields where they say the same.
 * Off again: field lines. JSON: nothing.
 */
void out_line(struct out *o, bool on, char kv);

/* Text: end the open field line (nothing if none is open); JSON: nothing. */
void out_eol(struct out *o);
/*
 * out_label() - text: start field |id| whatever its level, for a value the
 * caller writes with out_put_*() (lists with their own layout). JSON:
 * nothing.
 */
void out_label(struct out *o, unsigned id);

/* The group whose fields out_u64() and the rest address now. */
const struct out_group *out_group_cur(const struct out *o);

/*
 * Free-form text into the same buffer: the tools' one-line forms and
 * tables. out_flush() writes what is gathered.
 */
void out_putn(struct out *o, const char *p, size_t len);
void out_puts(struct out *o, const char *s);
void out_putc(struct out *o, char c);
/* out_printf() - printf-formatted free-form text: the tools' sentences
 * (summaries, banners, tables) go through the same buffer and stream as
 * their records, never to stdout past the output layer. */
void out_printf(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void out_put_u64(struct out *o, uint64_t v);
void out_put_i64(struct out *o, int64_t v);
void out_put_hex(struct out *o, uint64_t v, int digits); /* "0x", >= digits */
/* "[NAME|NAME]", a bit not in |names| as 0xNN. */
void out_put_flags(struct out *o, const struct wire_tok *names, uint64_t v, int digits);
/*
 * out_put_hexdump() - |p| in tcpdump -X's layout: "\t0xOFFS:  " then 16
 * bytes as eight groups of four hex digits, then as ASCII ('.' for the
 * rest). |squeeze|: a run of lines equal to the one before is one "\t*"
 * line, as hexdump(1) shows it (the last line always shows).
 */
void out_put_hexdump(struct out *o, const uint8_t *p, size_t len, bool squeeze);
/* Room for |need| (<= OUT_BUF) contiguous bytes; the caller adds to o->n. */
char *out_room(struct out *o, size_t need);
void out_flush(struct out *o);

/*
 * out_errf() - printf-formatted error message into |err| (|errlen| bytes;
 * nothing if |err| is NULL or |errlen| is 0), for the caller to report: the
 * one way the tools' parsers and codecs say what was wrong.
 * Return: -1, so that a parser can `return out_errf(...)`.
 */
int out_errf(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#ifdef __cplusplus
}
#endif

#endif /* OUT_H */
