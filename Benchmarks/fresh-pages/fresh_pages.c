/*
 * What a page of memory the process has never touched costs, next to rewriting memory it already
 * has. A pipeline that keeps every decoded bitmap in its memory cache pays the first price for
 * every pixel; a decode loop into one reused buffer (the harness's C decode limit) pays the second.
 *
 *   fresh_pages [BUFFER_KIB] [COUNT]     default: 3072 KiB (a 1024x768 RGBA bitmap) x 200
 *
 * Fresh: COUNT buffers from malloc, each mapped with MADV_POPULATE_WRITE (as WebImage's bitmaps
 * are) and then written once. Reused: one buffer written COUNT times. Prints one JSON line.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    size_t size = (size_t)(argc > 1 ? atol(argv[1]) : 3072) * 1024;
    int count = argc > 2 ? atoi(argv[2]) : 200;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    if (size < page || count < 1) { fprintf(stderr, "usage: %s [BUFFER_KIB>=4] [COUNT>=1]\n", argv[0]); return 2; }
    char **kept = calloc((size_t)count, sizeof *kept);
    if (!kept) return 1;

    double t0 = now();
    for (int i = 0; i < count; i++) {
        char *p = malloc(size);
        if (!p) { fprintf(stderr, "out of memory after %d buffers\n", i); return 1; }
        uintptr_t first = ((uintptr_t)p + page - 1) & ~(page - 1), last = ((uintptr_t)p + size) & ~(page - 1);
        if (last > first) madvise((void *)first, last - first, MADV_POPULATE_WRITE);
        memset(p, i & 0xff, size);
        kept[i] = p; /* kept, like a memory cache keeps its bitmaps */
    }
    double fresh = now() - t0;

    char *reused = malloc(size);
    if (!reused) return 1;
    memset(reused, 1, size);
    t0 = now();
    for (int i = 0; i < count; i++) memset(reused, i & 0xff, size);
    double again = now() - t0;

    double pages = (double)count * (double)size / (double)page;
    printf("{\"measure\":\"fresh-pages\",\"buffer_kib\":%zu,\"count\":%d,"
           "\"us_per_page_fresh\":%.3f,\"us_per_page_reused\":%.3f,\"us_per_buffer_fresh\":%.1f,"
           "\"us_per_buffer_reused\":%.1f}\n",
           size / 1024, count, fresh / pages * 1e6, again / pages * 1e6,
           fresh / count * 1e6, again / count * 1e6);
    volatile char sink = kept[count - 1][size - 1] + reused[size - 1];
    (void)sink;
    return 0;
}
