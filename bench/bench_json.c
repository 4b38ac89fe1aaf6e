// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * bench_json.c - the two JSON writers of the tree on rdsdump's own
 * records: tools/common/out.c (writes text as the calls come) against
 * json-c (builds a tree of objects, then serialises it).
 *
 *     bench_json FILE.json [--passes N]
 *
 * FILE is what `rdsdump --json` printed (one object a line). It is parsed
 * once, untimed, into a list of writer calls ("begin record, field 3 =
 * 42, open array 7, element "x", close, end"), the calls a renderer makes.
 * Each writer then replays the list into /dev/null, N passes each, and
 * the best pass is reported; a third replay that only walks the list is
 * the common cost, subtracted from both. Before timing, each writer's
 * output is compared with FILE byte for byte: the comparison is only
 * meaningful if both write exactly what rdsdump writes.
 *
 * out.c is driven as rdsdump's dump_print_rec() drives it: out_init() and
 * out_fini() around every record, '/' not escaped.
 */
#define _GNU_SOURCE
#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "out.h"

enum op { BEGIN, U64, I64, STR, BOOL, DBL, NUL, OBJ, ARR, EOBJ, ESTR, EU64, EBOOL, CLOSE, END };

struct ins {
	uint8_t op;
	unsigned id;
	const struct out_group *g; /* BEGIN */
	uint64_t u;
	int64_t i;
	double d;
	const char *s;
	bool b;
};

static struct ins *prog;
static size_t nprog, capprog;
static size_t nrec;

static void emit(struct ins in)
{
	if (nprog == capprog) {
		capprog = capprog ? 2 * capprog : 4096;
		prog = realloc(prog, capprog * sizeof(*prog));
		if (!prog)
			exit(2);
	}
	prog[nprog++] = in;
}

/* ---- field tables made from the records' own keys ---- */

#define MAXG 4096
static struct out_group groups[MAXG];
static char *sigs[MAXG];
static size_t ngroups;

static const struct out_group *group_of(json_object *o);
static const struct out_group *union_of(json_object *a);

static enum out_type type_of(json_object *v, const struct out_group **sub)
{
	*sub = NULL;
	switch (json_object_get_type(v)) {
	case json_type_int:
		return json_object_get_int64(v) < 0 ? OUT_I64 : OUT_U64;
	case json_type_double:
		return OUT_DOUBLE;
	case json_type_boolean:
		return OUT_BOOL;
	case json_type_string:
		return OUT_STR;
	case json_type_object:
		*sub = group_of(v);
		return OUT_OBJECT;
	case json_type_array:
		*sub = union_of(v);
		return OUT_ARRAY;
	default:
		return OUT_STR; /* null: any type prints null */
	}
}

static const struct out_group *intern(struct out_field *f, size_t n);

/* One group per shape (keys in order, with their types and sub-groups). */
static const struct out_group *group_of(json_object *o)
{
	size_t n = (size_t)json_object_object_length(o), k = 0;
	struct out_field *f = calloc(n ? n : 1, sizeof(*f));

	json_object_object_foreach(o, key, val)
	{
		const struct out_group *sub;

		f[k].key = key;
		f[k].type = type_of(val, &sub);
		f[k].sub = sub;
		k++;
	}
	return intern(f, n);
}

/* The elements of an array of objects share one group, as a renderer's
 * table has one: the union of their keys in the order they first come
 * (rdsdump's extension headers: type, name, ... then npaths or gen_num). */
static const struct out_group *union_of(json_object *a)
{
	size_t n = 0, cap = 0;
	struct out_field *f = NULL;

	for (size_t i = 0; i < json_object_array_length(a); i++) {
		json_object *e = json_object_array_get_idx(a, i);

		if (!json_object_is_type(e, json_type_object))
			return NULL;
		json_object_object_foreach(e, key, val)
		{
			size_t k = 0;
			const struct out_group *sub;

			while (k < n && strcmp(f[k].key, key))
				k++;
			if (k < n)
				continue;
			if (n == cap) {
				cap = cap ? 2 * cap : 16;
				f = realloc(f, cap * sizeof(*f));
			}
			memset(&f[n], 0, sizeof(f[n]));
			f[n].key = key;
			f[n].type = type_of(val, &sub);
			f[n].sub = sub;
			n++;
		}
	}
	return n ? intern(f, n) : NULL;
}

static const struct out_group *intern(struct out_field *f, size_t n)
{
	char *sig = NULL;
	size_t siglen = 0;
	FILE *m = open_memstream(&sig, &siglen);

	for (size_t k = 0; k < n; k++)
		fprintf(m, "%s:%d:%p,", f[k].key, (int)f[k].type, (const void *)f[k].sub);
	fclose(m);
	for (size_t i = 0; i < ngroups; i++)
		if (!strcmp(sigs[i], sig)) {
			free(sig);
			free(f);
			return &groups[i];
		}
	if (ngroups == MAXG) {
		fprintf(stderr, "bench_json: more than %d record shapes\n", MAXG);
		exit(2);
	}
	sigs[ngroups] = sig;
	groups[ngroups] = (struct out_group){ .name = "rec", .f = f, .n = n };
	return &groups[ngroups++];
}

static void compile_obj(json_object *o, const struct out_group *g);

/* A number, a boolean, a string or null as one writer call. */
static struct ins scalar(unsigned id, json_object *v)
{
	enum json_type t = json_object_get_type(v);
	bool neg = t == json_type_int && json_object_get_int64(v) < 0;

	return (struct ins){
		.id = id,
		.op = t == json_type_int ? (neg ? I64 : U64) : t == json_type_double ? DBL :
		      t == json_type_boolean ? BOOL : t == json_type_string ? STR : NUL,
		.u = t == json_type_int ? json_object_get_uint64(v) : 0,
		.i = neg ? json_object_get_int64(v) : 0,
		.d = t == json_type_double ? json_object_get_double(v) : 0,
		.s = t == json_type_string ? json_object_get_string(v) : NULL,
		.b = t == json_type_boolean && json_object_get_boolean(v),
	};
}

static void compile_val(unsigned id, json_object *v, const struct out_group *sub)
{
	switch (json_object_get_type(v)) {
	case json_type_object:
		emit((struct ins){ .op = OBJ, .id = id });
		compile_obj(v, sub ? sub : group_of(v));
		emit((struct ins){ .op = CLOSE });
		return;
	case json_type_array:
		emit((struct ins){ .op = ARR, .id = id });
		for (size_t i = 0; i < json_object_array_length(v); i++) {
			json_object *e = json_object_array_get_idx(v, i);

			switch (json_object_get_type(e)) {
			case json_type_object:
				emit((struct ins){ .op = EOBJ });
				compile_obj(e, sub);
				emit((struct ins){ .op = CLOSE });
				break;
			case json_type_string:
				emit((struct ins){ .op = ESTR, .s = json_object_get_string(e) });
				break;
			case json_type_boolean:
				emit((struct ins){ .op = EBOOL, .b = json_object_get_boolean(e) });
				break;
			default:
				emit((struct ins){ .op = EU64, .u = json_object_get_uint64(e) });
				break;
			}
		}
		emit((struct ins){ .op = CLOSE });
		return;
	default:
		emit(scalar(id, v));
		return;
	}
}

static void compile_obj(json_object *o, const struct out_group *g)
{
	json_object_object_foreach(o, key, val)
	{
		unsigned id = 0;

		while (strcmp(g->f[id].key, key))
			id++;
		compile_val(id, val, g->f[id].sub);
	}
}

/* ---- the writers ---- */

static void run_out(FILE *f)
{
	struct out s;

	for (size_t i = 0; i < nprog; i++) {
		const struct ins *p = &prog[i];

		switch (p->op) {
		case BEGIN:
			out_init(&s, f, OUT_JSON, 0, OUT_JSON_NOSLASH);
			out_begin(&s, p->g);
			break;
		case U64: out_u64(&s, p->id, p->u); break;
		case I64: out_i64(&s, p->id, p->i); break;
		case STR: out_str(&s, p->id, p->s); break;
		case BOOL: out_bool(&s, p->id, p->b); break;
		case DBL: out_double(&s, p->id, p->d); break;
		case NUL: out_null(&s, p->id); break;
		case OBJ: out_obj_open(&s, p->id); break;
		case ARR: out_arr_open(&s, p->id); break;
		case EOBJ: out_elem_obj(&s); break;
		case ESTR: out_elem_str(&s, p->s); break;
		case EU64: out_elem_u64(&s, p->u); break;
		case EBOOL: out_elem_bool(&s, p->b); break;
		case CLOSE: out_close(&s); break;
		case END:
			out_end(&s);
			out_fini(&s);
			break;
		}
	}
}

static void run_jsonc(FILE *f)
{
	json_object *st[16];
	const struct out_group *gs[16];
	int d = -1;

	for (size_t i = 0; i < nprog; i++) {
		const struct ins *p = &prog[i];
		json_object *v = NULL;
		const struct out_group *sub = NULL;

		switch (p->op) {
		case BEGIN:
			st[++d] = json_object_new_object();
			gs[d] = p->g;
			continue;
		case END: {
			const char *t = json_object_to_json_string_ext(
				st[0], JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);

			fputs(t, f);
			fputc('\n', f);
			json_object_put(st[0]);
			d = -1;
			continue;
		}
		case CLOSE:
			d--;
			continue;
		case U64: v = json_object_new_uint64(p->u); break;
		case I64: v = json_object_new_int64(p->i); break;
		case STR: v = json_object_new_string(p->s); break;
		case BOOL: v = json_object_new_boolean(p->b); break;
		case DBL: v = json_object_new_double(p->d); break;
		case NUL: v = NULL; break;
		case OBJ:
		case EOBJ:
			v = json_object_new_object();
			break;
		case ARR: v = json_object_new_array(); break;
		case ESTR: v = json_object_new_string(p->s); break;
		case EU64: v = json_object_new_uint64(p->u); break;
		case EBOOL: v = json_object_new_boolean(p->b); break;
		}
		if (p->op == ESTR || p->op == EU64 || p->op == EBOOL || p->op == EOBJ)
			json_object_array_add(st[d], v);
		else
			json_object_object_add(st[d], gs[d]->f[p->id].key, v);
		if (p->op == OBJ || p->op == ARR || p->op == EOBJ) {
			sub = p->op == EOBJ ? gs[d] : gs[d]->f[p->id].sub;
			st[++d] = v;
			gs[d] = sub;
		}
	}
}

static volatile uint64_t sink;

static void run_walk(FILE *f)
{
	uint64_t x = 0;

	(void)f;
	for (size_t i = 0; i < nprog; i++)
		x += prog[i].op + prog[i].id;
	sink = x;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static double best(void (*fn)(FILE *), FILE *f, int passes)
{
	double b = 1e30;

	for (int i = 0; i < passes; i++) {
		double t0 = now_s();

		fn(f);
		fflush(f);
		t0 = now_s() - t0;
		if (t0 < b)
			b = t0;
	}
	return b;
}

static int same(void (*fn)(FILE *), const char *want, size_t wlen, const char *name)
{
	char *got = NULL;
	size_t glen = 0;
	FILE *m = open_memstream(&got, &glen);

	fn(m);
	fclose(m);
	if (glen != wlen || memcmp(got, want, wlen)) {
		size_t i = 0;

		while (i < glen && i < wlen && got[i] == want[i])
			i++;
		fprintf(stderr, "bench_json: %s differs from the input at byte %zu\n", name, i);
		free(got);
		return 1;
	}
	free(got);
	return 0;
}

int main(int argc, char **argv)
{
	int passes = 5;
	char *text = NULL, *line = NULL;
	size_t tlen = 0, cap = 0;
	ssize_t n;
	FILE *in, *tm, *null;

	if (argc < 2) {
		fprintf(stderr, "usage: bench_json FILE.json [--passes N]\n");
		return 2;
	}
	if (argc > 3 && !strcmp(argv[2], "--passes"))
		passes = atoi(argv[3]) > 0 ? atoi(argv[3]) : 1;
	in = fopen(argv[1], "r");
	if (!in) {
		perror(argv[1]);
		return 2;
	}
	tm = open_memstream(&text, &tlen);
	while ((n = getline(&line, &cap, in)) > 0) {
		json_object *o;

		if (line[0] != '{')
			continue; /* a golden file's trailer ("exit 0") */
		o = json_tokener_parse(line);

		if (!o || !json_object_is_type(o, json_type_object)) {
			fprintf(stderr, "bench_json: not a JSON object: %s", line);
			return 2;
		}
		fwrite(line, 1, (size_t)n, tm);
		emit((struct ins){ .op = BEGIN, .g = group_of(o) });
		compile_obj(o, prog[nprog - 1].g);
		emit((struct ins){ .op = END });
		nrec++; /* the parsed trees stay: the calls point into them */
	}
	fclose(in);
	fclose(tm);
	if (same(run_out, text, tlen, "out.c") | same(run_jsonc, text, tlen, "json-c"))
		return 1;
	null = fopen("/dev/null", "w");
	setvbuf(null, NULL, _IOFBF, 1 << 20);
	double tw = best(run_walk, null, passes);
	double to = best(run_out, null, passes) - tw;
	double tj = best(run_jsonc, null, passes) - tw;

	printf("# %zu records, %zu bytes of JSON, %zu writer calls, %zu record shapes; "
	       "best of %d passes\n", nrec, tlen, nprog, ngroups, passes);
	printf("%-8s %10.1f ms %10.0f records/s %8.1f MB/s\n", "out.c", to * 1e3, nrec / to,
	       tlen / to / 1e6);
	printf("%-8s %10.1f ms %10.0f records/s %8.1f MB/s\n", "json-c", tj * 1e3, nrec / tj,
	       tlen / tj / 1e6);
	printf("json-c / out.c time: %.2f\n", tj / to);
	return 0;
}
