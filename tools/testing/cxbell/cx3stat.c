// SPDX-License-Identifier: GPL-2.0
/*
 * cx3stat: print the counters of the QEMU ConnectX-3 model, for the
 * cxbell VM tests (Documentation/connectx3-model.rst).
 *
 *   cx3stat [-d BDF] [NAME]
 *   cx3stat [-d BDF] -c 0|1
 *   cx3stat [-d BDF] -e N
 *
 * Finds the PCI function 15b3:1003 in /sys/bus/pci/devices (the first
 * one, or BDF, e.g. 0000:00:02.0; also $CX3STAT_DEV), maps 4 KiB of its
 * BAR0 at offset 0xc0000 read-only through sysfs resource0, and prints
 * the model's counters page there as "name value" lines, or with NAME
 * the value of that one counter alone. The page (the model's, absent on
 * silicon, never touched by mlx4_core):
 *
 *   0x00  u32 magic 0x43583343
 *   0x04  u32 count
 *   0x08  count x { char name[24] (NUL-padded), u64 value }
 *
 * all little-endian. The model's BAR0 takes 32-bit accesses: each u64 is
 * read as its low then its high half, again if the high half moved.
 *
 * While mlx4_core holds the BAR (pci_request_regions), a kernel built with
 * CONFIG_IO_STRICT_DEVMEM (Debian's) refuses the mapping unless booted
 * with iomem=relaxed, which vm-run --cx3 does.
 *
 * With -c, it instead pulls (0) or plugs (1) the cable between the two
 * ports; with -e, the next N send WQEs the device executes fail with an
 * error CQE. Both are registers of the model's test page at BAR0 0xc1000
 * (also absent on silicon; u32 at 0x0 and 0x4, little-endian), written
 * only once the counters page's magic proved the function is the model,
 * and read back (the fail_sends count may have gone down already).
 *
 * Exit status: 0; 1 if there is no such device, the mapping fails, the
 * magic is wrong or NAME is not a counter; 2 on a usage error.
 *
 * Built static by tools/testing/cxbell/mkinitramfs (gcc -static), like
 * tcpblast.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define CX3_VENDOR	0x15b3
#define CX3_DEVICE	0x1003
#define CTR_PAGE	0xc0000
#define CTR_MAP		4096
#define CTR_MAGIC	0x43583343u
#define CTR_HDR		8
#define CTR_NAME	24
#define CTR_ENTRY	(CTR_NAME + 8)
#define CTR_MAX		((CTR_MAP - CTR_HDR) / CTR_ENTRY)
#define TEST_PAGE	0xc1000
#define TEST_CABLE	0x0
#define TEST_FAIL_SENDS	0x4

static const char *sysfs = "/sys/bus/pci/devices";

static unsigned long read_hex(const char *dev, const char *attr)
{
	char path[512], buf[32];
	unsigned long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s/%s", sysfs, dev, attr);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f))
		v = strtoul(buf, NULL, 16);
	fclose(f);
	return v;
}

static int is_cx3(const char *dev)
{
	return read_hex(dev, "vendor") == CX3_VENDOR &&
	       read_hex(dev, "device") == CX3_DEVICE;
}

/* The first 15b3:1003 function (in readdir order: sort for stability). */
static int find_dev(char *out, size_t len)
{
	struct dirent **ents;
	int n, i, found = 0;

	n = scandir(sysfs, &ents, NULL, alphasort);
	if (n < 0) {
		fprintf(stderr, "cx3stat: %s: %s\n", sysfs, strerror(errno));
		return 0;
	}
	for (i = 0; i < n; i++) {
		if (!found && ents[i]->d_name[0] != '.' &&
		    is_cx3(ents[i]->d_name)) {
			snprintf(out, len, "%s", ents[i]->d_name);
			found = 1;
		}
		free(ents[i]);
	}
	free(ents);
	return found;
}

static uint32_t rd32(const uint8_t *p, size_t off)
{
	/*
	 * One aligned 32-bit load (atomic: never split, merged or elided);
	 * the page is little-endian, like x86.
	 */
	return __atomic_load_n((const uint32_t *)(p + off), __ATOMIC_RELAXED);
}

static uint64_t rd64(const uint8_t *p, size_t off)
{
	uint32_t lo, hi, hi2;
	int tries;

	hi = rd32(p, off + 4);
	for (tries = 0; tries < 8; tries++) {
		lo = rd32(p, off);
		hi2 = rd32(p, off + 4);
		if (hi2 == hi)
			break;
		hi = hi2;
	}
	return (uint64_t)hi << 32 | lo;
}

/* Write register OFF of the test page of the model behind FD. */
static int set_test(int fd, const char *dev, size_t off, uint32_t val)
{
	uint32_t *reg;
	uint8_t *page;
	uint32_t back;

	page = mmap(NULL, CTR_MAP, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		    TEST_PAGE);
	if (page == MAP_FAILED) {
		fprintf(stderr, "cx3stat: %s: mmap of the test page: %s\n", dev,
			strerror(errno));
		return 1;
	}
	/* one aligned 32-bit store and load each, as rd32() */
	reg = (uint32_t *)(page + off);
	__atomic_store_n(reg, val, __ATOMIC_RELAXED);
	back = __atomic_load_n(reg, __ATOMIC_RELAXED);
	munmap(page, CTR_MAP);
	/* fail_sends counts down as the device fails sends: at most VAL */
	if (off == TEST_FAIL_SENDS ? back > val : back != val) {
		fprintf(stderr, "cx3stat: %s: test register 0x%zx reads %u, wrote %u\n",
			dev, off, back, val);
		return 1;
	}
	return 0;
}

static void bad_usage(void)
{
	fputs("usage: cx3stat [-d BDF] [NAME]\n"
	      "       cx3stat [-d BDF] -c 0|1\n"
	      "       cx3stat [-d BDF] -e N\n", stderr);
	exit(2);
}

int main(int argc, char **argv)
{
	const char *want = NULL, *bdf = getenv("CX3STAT_DEV");
	char dev[256], path[512], name[CTR_NAME + 1];
	const uint8_t *page;
	uint32_t magic, count, i;
	int fd, opt, found = 0, set = 0;
	size_t reg = 0;
	unsigned long val = 0;
	char *end;

	while ((opt = getopt(argc, argv, "c:d:e:h")) != -1) {
		switch (opt) {
		case 'c':
			if (strcmp(optarg, "0") && strcmp(optarg, "1"))
				bad_usage();
			set = 1;
			reg = TEST_CABLE;
			val = optarg[0] - '0';
			break;
		case 'e':
			errno = 0;
			val = strtoul(optarg, &end, 10);
			if (errno || *end || end == optarg || val > UINT32_MAX)
				bad_usage();
			set = 1;
			reg = TEST_FAIL_SENDS;
			break;
		case 'd':
			bdf = optarg;
			break;
		default:
			bad_usage();
		}
	}
	if (optind < argc)
		want = argv[optind++];
	if (optind < argc || (set && want))
		bad_usage();

	if (bdf && *bdf) {
		snprintf(dev, sizeof(dev), "%s", bdf);
		if (!is_cx3(dev)) {
			fprintf(stderr, "cx3stat: %s is not a 15b3:1003 PCI function\n",
				dev);
			return 1;
		}
	} else if (!find_dev(dev, sizeof(dev))) {
		fprintf(stderr, "cx3stat: no ConnectX-3 (PCI 15b3:1003) in %s\n",
			sysfs);
		return 1;
	}

	snprintf(path, sizeof(path), "%s/%s/resource0", sysfs, dev);
	fd = open(path, set ? O_RDWR : O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "cx3stat: %s: %s\n", path, strerror(errno));
		return 1;
	}
	page = mmap(NULL, CTR_MAP, PROT_READ, MAP_SHARED, fd, CTR_PAGE);
	if (page == MAP_FAILED) {
		fprintf(stderr, "cx3stat: mmap %s at 0x%x: %s%s\n", path,
			CTR_PAGE, strerror(errno),
			errno == EINVAL ?
			" (BAR claimed by a driver and no iomem=relaxed?)" : "");
		close(fd);
		return 1;
	}

	magic = rd32(page, 0);
	if (magic != CTR_MAGIC) {
		fprintf(stderr,
			"cx3stat: %s: bad magic 0x%08x at BAR0 0x%x (want 0x%08x): not the model's counters page\n",
			dev, magic, CTR_PAGE, CTR_MAGIC);
		return 1;
	}
	if (set) {
		i = set_test(fd, dev, reg, val);
		close(fd);
		return i;
	}
	close(fd);
	count = rd32(page, 4);
	if (count > CTR_MAX) {
		fprintf(stderr, "cx3stat: %s: bad counter count %u (at most %u)\n",
			dev, count, (unsigned int)CTR_MAX);
		return 1;
	}

	for (i = 0; i < count; i++) {
		size_t off = CTR_HDR + (size_t)i * CTR_ENTRY;
		uint32_t w;
		int j;

		/* the name by 32-bit loads too */
		for (j = 0; j < CTR_NAME; j += 4) {
			w = rd32(page, off + j);
			memcpy(name + j, &w, 4);
		}
		name[CTR_NAME] = '\0';
		if (!name[0])
			continue;
		if (want && strcmp(want, name))
			continue;
		if (want)
			printf("%llu\n", (unsigned long long)rd64(page, off + CTR_NAME));
		else
			printf("%s %llu\n", name,
			       (unsigned long long)rd64(page, off + CTR_NAME));
		found = 1;
	}
	if (want && !found) {
		fprintf(stderr, "cx3stat: %s: no counter '%s'\n", dev, want);
		return 1;
	}
	return 0;
}
