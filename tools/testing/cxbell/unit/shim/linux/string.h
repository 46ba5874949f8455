/* SPDX-License-Identifier: GPL-2.0 */
/* User-space stand-in for linux/string.h (host unit tests only). */
#include <string.h>
