/* SPDX-License-Identifier: GPL-2.0 */
/* User-space stand-in for the kernel types (and the few compiler and
 * stddef.h macros every kernel file gets) that the mlx4 and mlx5 headers
 * and the cxbell pure-logic headers use (host unit tests only).
 */
#ifndef _CXB_SHIM_TYPES_H
#define _CXB_SHIM_TYPES_H

#include <assert.h>
#include <endian.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint8_t u8;
typedef uint8_t __u8;
typedef uint16_t __u16;
typedef uint32_t __u32;
typedef uint64_t __u64;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;
typedef uint16_t __be16;
typedef uint32_t __be32;
typedef uint64_t __be64;
typedef uint64_t dma_addr_t;
/* Only named in doorbell.h's 32-bit path and prototypes. */
#define spinlock_t	int

#define __iomem
#define __force
/* __packed: -D in the Makefile (checkpatch wants the kernel's spelling) */
#define BITS_PER_LONG	__WORDSIZE
#define PAGE_SIZE	4096UL
#define BIT_ULL(n)	(1ULL << (n))
#define BUILD_BUG_ON(c)	static_assert(!(c), #c)
#define container_of(ptr, type, member)	\
	((type *)((char *)(ptr) - offsetof(type, member)))
/* As linux/stddef.h (the mlx5 WQE segments use both). */
#define struct_group(NAME, MEMBERS...)	\
	union {				\
		struct { MEMBERS };	\
		struct { MEMBERS } NAME; \
	}
#define DECLARE_FLEX_ARRAY(TYPE, NAME)		\
	struct {				\
		struct { } __empty_ ## NAME;	\
		TYPE NAME[];			\
	}

#define cpu_to_be16(x)	htobe16(x)
#define cpu_to_be32(x)	htobe32(x)
#define cpu_to_be64(x)	htobe64(x)
#define be16_to_cpu(x)	be16toh(x)
#define be32_to_cpu(x)	be32toh(x)
#define be64_to_cpu(x)	be64toh(x)

#endif
