/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * list.h - intrusive doubly linked lists, in the kernel's shape, so queues
 * cost no allocation of their own and a message can sit on a path queue
 * and its socket's list at once.
 */
#ifndef RDSU_LIST_H
#define RDSU_LIST_H

#include <stdbool.h>
#include <stddef.h>

struct rdsu_list {
	struct rdsu_list *next, *prev;
};

#define rdsu_container_of(ptr, type, member)                                                       \
	((type *)(void *)((char *)(ptr) - offsetof(type, member)))

static inline void rdsu_list_init(struct rdsu_list *l)
{
	l->next = l;
	l->prev = l;
}

static inline bool rdsu_list_empty(const struct rdsu_list *l)
{
	return l->next == l;
}

/* A node that was initialised or deleted with rdsu_list_del_init(). */
static inline bool rdsu_list_linked(const struct rdsu_list *n)
{
	return n->next != n;
}

static inline void rdsu_list_insert(struct rdsu_list *n, struct rdsu_list *prev,
				    struct rdsu_list *next)
{
	next->prev = n;
	n->next = next;
	n->prev = prev;
	prev->next = n;
}

static inline void rdsu_list_add_tail(struct rdsu_list *n, struct rdsu_list *head)
{
	rdsu_list_insert(n, head->prev, head);
}

static inline void rdsu_list_add(struct rdsu_list *n, struct rdsu_list *head)
{
	rdsu_list_insert(n, head, head->next);
}

static inline void rdsu_list_del_init(struct rdsu_list *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	rdsu_list_init(n);
}

/* Move every node of |from| to the front of |to|, keeping their order;
 * |from| is left empty. */
static inline void rdsu_list_splice_front(struct rdsu_list *from, struct rdsu_list *to)
{
	struct rdsu_list *first = from->next, *last = from->prev, *at = to->next;

	if (rdsu_list_empty(from))
		return;
	first->prev = to;
	to->next = first;
	last->next = at;
	at->prev = last;
	rdsu_list_init(from);
}

#endif /* RDSU_LIST_H */
