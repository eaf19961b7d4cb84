/*
 * A QEMU TCG plugin that counts the loads and stores of one inference, per memory and per operator.
 *
 * usmp's runner builds it with the host compiler at first use (runner/traffic.py) and loads it with
 * -plugin FILE.so,config=CONFIG,out=OUT. CONFIG is a text file of lines
 *
 *   begin ADDR            the first instruction of the marker that opens the inference
 *   end ADDR              ... and of the one that closes it
 *   memory ID LO HI       data addresses [LO, HI) belong to memory ID (0, 1, ...); any other is "other"
 *   owner ID LO HI        executing an instruction in [LO, HI) makes operator ID (-1: none) the one
 *                         whose accesses these are, until another such instruction runs
 *
 * and OUT receives one line per (operator, memory) pair that saw traffic:
 *
 *   OWNER MEMORY LOADS STORES BYTES_READ BYTES_WRITTEN
 *
 * (MEMORY is the number of memories for "other", OWNER -1 for no operator). An access is one 32-bit
 * transfer: each aligned word an instruction reads (or writes) counts once, however many of its bytes it
 * touches. QEMU reports a Helium vector load as one access per element and LDRD or LDM as one per word;
 * counting words makes a 16-byte vector load 4 accesses and a byte load 1, as a 32-bit bus sees them.
 *
 * Debian's QEMU 7.2 ships no qemu-plugin.h: the few functions of its plugin API (version 1) used here
 * are declared below as that release defines them.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- QEMU 7.2's plugin API, the part this plugin calls ---------------------------------------- */
typedef uint64_t qemu_plugin_id_t;
typedef uint32_t qemu_plugin_meminfo_t;
typedef struct qemu_info_t qemu_info_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_CB_R_REGS, QEMU_PLUGIN_CB_RW_REGS };
enum qemu_plugin_mem_rw { QEMU_PLUGIN_MEM_R = 1, QEMU_PLUGIN_MEM_W, QEMU_PLUGIN_MEM_RW };
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
					   void (*cb)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb));
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
void qemu_plugin_register_vcpu_mem_cb(struct qemu_plugin_insn *insn,
				      void (*cb)(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr,
						 void *udata),
				      enum qemu_plugin_cb_flags flags, enum qemu_plugin_mem_rw rw, void *udata);
unsigned int qemu_plugin_mem_size_shift(qemu_plugin_meminfo_t info);
bool qemu_plugin_mem_is_store(qemu_plugin_meminfo_t info);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn, void (*cb)(unsigned int vcpu, void *udata),
					    enum qemu_plugin_cb_flags flags, void *udata);
void qemu_plugin_register_vcpu_insn_exec_inline(struct qemu_plugin_insn *insn, enum qemu_plugin_op op, void *ptr,
						uint64_t imm);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, void (*cb)(qemu_plugin_id_t id, void *udata),
				    void *udata);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

/* --- configuration ------------------------------------------------------------------------------ */
struct range {
	uint64_t lo, hi;
	int64_t id;
};

struct ranges {
	struct range *items;
	size_t count, capacity;
};

static struct ranges memories, owners;
static uint64_t begin_pc, end_pc;
static int have_begin, have_end;
static size_t memory_count; /* memory ids are 0 .. memory_count - 1; memory_count is "other" */
static int64_t owner_count; /* owner ids are -1 .. owner_count - 1 */
static char out_path[4096];

/* --- counting state ----------------------------------------------------------------------------- */
enum { LOADS, STORES, BYTES_READ, BYTES_WRITTEN, COUNTERS };

static uint64_t *counts; /* [(owner + 1) * (memory_count + 1) + memory][COUNTERS] */
static int counting;
static int64_t current_owner = -1;
static uint64_t executed; /* instructions begun: tells one execution of an instruction from the next */
static uint64_t last_executed = UINT64_MAX;
static uint64_t last_word = UINT64_MAX;
static int last_store = -1;

static void add_range(struct ranges *set, int64_t id, uint64_t lo, uint64_t hi)
{
	if (set->count == set->capacity) {
		set->capacity = set->capacity ? 2 * set->capacity : 64;
		set->items = realloc(set->items, set->capacity * sizeof(*set->items));
		if (set->items == NULL) {
			abort();
		}
	}
	set->items[set->count].lo = lo;
	set->items[set->count].hi = hi;
	set->items[set->count].id = id;
	set->count++;
}

static int by_start(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The id of the range holding address, or fallback. Ranges are sorted and do not overlap. */
static int64_t find(const struct ranges *set, uint64_t address, int64_t fallback)
{
	size_t lo = 0, hi = set->count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (address < set->items[mid].lo) {
			hi = mid;
		} else if (address >= set->items[mid].hi) {
			lo = mid + 1;
		} else {
			return set->items[mid].id;
		}
	}
	return fallback;
}

static int read_config(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[256];

	if (f == NULL) {
		fprintf(stderr, "memory_traffic: cannot read %s\n", path);
		return -1;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		char word[16];
		long long id;
		unsigned long long lo, hi;

		if (sscanf(line, "%15s", word) != 1) {
			continue;
		}
		if (strcmp(word, "begin") == 0 && sscanf(line, "%*s %lli", (long long *)&lo) == 1) {
			begin_pc = lo;
			have_begin = 1;
		} else if (strcmp(word, "end") == 0 && sscanf(line, "%*s %lli", (long long *)&lo) == 1) {
			end_pc = lo;
			have_end = 1;
		} else if (sscanf(line, "%*s %lli %lli %lli", &id, (long long *)&lo, (long long *)&hi) == 3) {
			if (strcmp(word, "memory") == 0 && id >= 0) {
				add_range(&memories, id, lo, hi);
				if ((size_t)id + 1 > memory_count) {
					memory_count = (size_t)id + 1;
				}
			} else if (strcmp(word, "owner") == 0 && id >= -1) {
				add_range(&owners, id, lo, hi);
				if (id + 1 > owner_count) {
					owner_count = id + 1;
				}
			}
		}
	}
	fclose(f);
	qsort(memories.items, memories.count, sizeof(*memories.items), by_start);
	qsort(owners.items, owners.count, sizeof(*owners.items), by_start);
	return have_begin && have_end ? 0 : -1;
}

/* --- callbacks ---------------------------------------------------------------------------------- */
static void on_marker(unsigned int vcpu, void *udata)
{
	(void)vcpu;
	counting = udata == &begin_pc;
	current_owner = -1;
}

static void on_owner(unsigned int vcpu, void *udata)
{
	(void)vcpu;
	current_owner = (int64_t)(intptr_t)udata - 1;
}

static void on_access(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *udata)
{
	unsigned int bytes = 1u << qemu_plugin_mem_size_shift(info);
	int store = qemu_plugin_mem_is_store(info) ? 1 : 0;
	uint64_t word, last = (vaddr + bytes - 1) >> 2;
	uint64_t *row;

	(void)vcpu;
	(void)udata;
	if (!counting) {
		return;
	}
	row = counts + (size_t)(current_owner + 1) * (memory_count + 1) * COUNTERS;
	row[(size_t)find(&memories, vaddr, (int64_t)memory_count) * COUNTERS + (store ? BYTES_WRITTEN : BYTES_READ)] +=
		bytes;
	for (word = vaddr >> 2; word <= last; word++) {
		if (executed == last_executed && word == last_word && store == last_store) {
			continue; /* another element of the same instruction's access to this word */
		}
		last_executed = executed;
		last_word = word;
		last_store = store;
		row[(size_t)find(&memories, word << 2, (int64_t)memory_count) * COUNTERS + (store ? STORES : LOADS)]++;
	}
}

static void on_translation(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t k, n = qemu_plugin_tb_n_insns(tb);

	(void)id;
	for (k = 0; k < n; k++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, k);
		uint64_t pc = qemu_plugin_insn_vaddr(insn);
		int64_t owner = find(&owners, pc, -2);

		if (pc == begin_pc) {
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_marker, QEMU_PLUGIN_CB_NO_REGS, &begin_pc);
		} else if (pc == end_pc) {
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_marker, QEMU_PLUGIN_CB_NO_REGS, &end_pc);
		}
		if (owner >= -1) {
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_owner, QEMU_PLUGIN_CB_NO_REGS,
							       (void *)(intptr_t)(owner + 1));
		}
		qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64, &executed, 1);
		qemu_plugin_register_vcpu_mem_cb(insn, on_access, QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_MEM_RW, NULL);
	}
}

static void on_exit(qemu_plugin_id_t id, void *udata)
{
	FILE *f = fopen(out_path, "w");
	int64_t owner;
	size_t memory;

	(void)id;
	(void)udata;
	if (f == NULL) {
		fprintf(stderr, "memory_traffic: cannot write %s\n", out_path);
		return;
	}
	for (owner = -1; owner < owner_count; owner++) {
		for (memory = 0; memory <= memory_count; memory++) {
			const uint64_t *c = counts + ((size_t)(owner + 1) * (memory_count + 1) + memory) * COUNTERS;

			if (c[LOADS] || c[STORES]) {
				fprintf(f, "%lld %zu %llu %llu %llu %llu\n", (long long)owner, memory,
					(unsigned long long)c[LOADS], (unsigned long long)c[STORES],
					(unsigned long long)c[BYTES_READ], (unsigned long long)c[BYTES_WRITTEN]);
			}
		}
	}
	fclose(f);
}

__attribute__((visibility("default"))) int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
							       int argc, char **argv)
{
	const char *config = NULL;
	int k;

	(void)info;
	for (k = 0; k < argc; k++) {
		if (strncmp(argv[k], "config=", 7) == 0) {
			config = argv[k] + 7;
		} else if (strncmp(argv[k], "out=", 4) == 0) {
			snprintf(out_path, sizeof(out_path), "%s", argv[k] + 4);
		}
	}
	if (config == NULL || out_path[0] == '\0' || read_config(config) != 0) {
		fprintf(stderr, "memory_traffic: expected config=FILE (with begin and end) and out=FILE\n");
		return -1;
	}
	counts = calloc((size_t)(owner_count + 1) * (memory_count + 1) * COUNTERS, sizeof(*counts));
	if (counts == NULL) {
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translation);
	qemu_plugin_register_atexit_cb(id, on_exit, NULL);
	return 0;
}
