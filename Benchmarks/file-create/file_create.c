/*
 * What writing one disk-cache entry costs on a file system, step by step, the way WebImage's disk
 * cache writes one: create a hidden temporary file (open with O_CREAT | O_EXCL), write the bytes,
 * set its dates, close it, rename it to its final name. A C decode loop pays none of this; every
 * image a pipeline loads with SDWebImage's default disk store pays all of it.
 *
 *   file_create DIR [COUNT] [BYTES]     default: 300 files of 15000 bytes (a small JPEG)
 *
 * DIR is created if missing; the files are removed afterwards (not timed). Prints one JSON line
 * with the microseconds per file of each step.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s DIR [COUNT] [BYTES]\n", argv[0]);
        return 2;
    }
    const char *dir = argv[1];
    int count = argc > 2 ? atoi(argv[2]) : 300;
    size_t bytes = argc > 3 ? (size_t)atol(argv[3]) : 15000;
    if (count < 1 || bytes < 1) {
        fprintf(stderr, "COUNT and BYTES must be positive\n");
        return 2;
    }
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        perror(dir);
        return 1;
    }
    char *data = malloc(bytes);
    if (!data) return 1;
    memset(data, 0x5a, bytes);
    double create = 0, write_close = 0, rename_time = 0;
    char temporary[4096], final_name[4096];
    for (int i = 0; i < count; i++) {
        snprintf(temporary, sizeof temporary, "%s/.tmp-%d-%d", dir, (int)getpid(), i);
        snprintf(final_name, sizeof final_name, "%s/entry-%d-%d", dir, (int)getpid(), i);
        double t0 = now();
        int fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        double t1 = now();
        if (fd < 0) {
            perror(temporary);
            return 1;
        }
        if (write(fd, data, bytes) != (ssize_t)bytes) {
            perror("write");
            return 1;
        }
        struct timespec times[2] = {{1800000000, 0}, {1800000000, 0}};
        futimens(fd, times);
        close(fd);
        double t2 = now();
        if (rename(temporary, final_name) != 0) {
            perror("rename");
            return 1;
        }
        double t3 = now();
        create += t1 - t0;
        write_close += t2 - t1;
        rename_time += t3 - t2;
    }
    for (int i = 0; i < count; i++) {
        snprintf(final_name, sizeof final_name, "%s/entry-%d-%d", dir, (int)getpid(), i);
        unlink(final_name);
    }
    free(data);
    printf("{\"dir\":\"%s\",\"files\":%d,\"bytes\":%zu,\"us_create\":%.1f,\"us_write_close\":%.1f,"
           "\"us_rename\":%.1f,\"us_total\":%.1f}\n",
           dir, count, bytes, create * 1e6 / count, write_close * 1e6 / count, rename_time * 1e6 / count,
           (create + write_close + rename_time) * 1e6 / count);
    return 0;
}
