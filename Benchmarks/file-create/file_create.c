/*
 * What writing one disk-cache entry costs on a file system, step by step, the way WebImage's disk
 * cache writes one: create a hidden temporary file (open with O_CREAT | O_EXCL), write the bytes,
 * set its dates, close it, rename it to its final name. A C decode loop pays none of this; every
 * image a pipeline loads with SDWebImage's default disk store pays all of it.
 *
 *   file_create DIR [COUNT] [BYTES]     default: 300 files of 15000 bytes (a small JPEG)
 *
 * DIR is created if missing; the files are removed afterwards, also after a failure (not timed).
 * Prints one JSON line with the microseconds per file of each step: creating the file, writing it
 * with its dates set and closing it, and renaming it.
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

/* Removes the temporary and final files of entries 0..<count (untimed; missing ones are fine). */
static void remove_entries(const char *dir, int count) {
    char path[4096];
    for (int i = 0; i < count; i++) {
        snprintf(path, sizeof path, "%s/.tmp-%d-%d", dir, (int)getpid(), i);
        unlink(path);
        snprintf(path, sizeof path, "%s/entry-%d-%d", dir, (int)getpid(), i);
        unlink(path);
    }
}

static long positive(const char *text, const char *what) {
    char *end = NULL;
    errno = 0;
    long value = strtol(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || value < 1 || value > (1L << 30)) {
        fprintf(stderr, "%s must be a whole number from 1 to %ld, got '%s'\n", what, 1L << 30, text);
        exit(2);
    }
    return value;
}

int main(int argc, char **argv) {
    if (argc < 2 || argc > 4) {
        fprintf(stderr, "usage: %s DIR [COUNT] [BYTES]\n", argv[0]);
        return 2;
    }
    const char *dir = argv[1];
    int count = argc > 2 ? (int)positive(argv[2], "COUNT") : 300;
    size_t bytes = argc > 3 ? (size_t)positive(argv[3], "BYTES") : 15000;
    if (strlen(dir) > 3000) {
        fprintf(stderr, "DIR is too long\n");
        return 2;
    }
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        perror(dir);
        return 1;
    }
    char *data = malloc(bytes);
    if (!data) {
        fprintf(stderr, "cannot allocate %zu bytes\n", bytes);
        return 1;
    }
    memset(data, 0x5a, bytes);
    double create = 0, write_dates_close = 0, rename_time = 0;
    char temporary[4096], final_name[4096];
    for (int i = 0; i < count; i++) {
        snprintf(temporary, sizeof temporary, "%s/.tmp-%d-%d", dir, (int)getpid(), i);
        snprintf(final_name, sizeof final_name, "%s/entry-%d-%d", dir, (int)getpid(), i);
        double t0 = now();
        int fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        double t1 = now();
        const char *failed = NULL;
        if (fd < 0) {
            failed = "open";
        } else {
            ssize_t put = write(fd, data, bytes);
            if (put != (ssize_t)bytes) {
                if (put >= 0) errno = ENOSPC;  /* a short write: the file system is full */
                failed = "write";
            }
            struct timespec times[2] = {{1800000000, 0}, {1800000000, 0}};
            if (!failed && futimens(fd, times) != 0) failed = "futimens";
            if (close(fd) != 0 && !failed) failed = "close";
        }
        double t2 = now();
        if (!failed && rename(temporary, final_name) != 0) failed = "rename";
        double t3 = now();
        if (failed) {
            perror(failed);
            remove_entries(dir, i + 1);
            free(data);
            return 1;
        }
        create += t1 - t0;
        write_dates_close += t2 - t1;
        rename_time += t3 - t2;
    }
    remove_entries(dir, count);
    free(data);
    printf("{\"files\":%d,\"bytes\":%zu,\"us_create\":%.1f,\"us_write_dates_close\":%.1f,"
           "\"us_rename\":%.1f,\"us_total\":%.1f}\n",
           count, bytes, create * 1e6 / count, write_dates_close * 1e6 / count, rename_time * 1e6 / count,
           (create + write_dates_close + rename_time) * 1e6 / count);
    return 0;
}
