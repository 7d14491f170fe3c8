#ifndef CRAW_SHIM_H
#define CRAW_SHIM_H
#include "../CDynamicTable/dynamic_table.h"
/* LibRaw (its reentrant build) through a typed dlopen table, opened the first time a DNG holds raw
   sensor data and no picture libtiff can render: demosaiced, white-balanced as shot, into 8-bit sRGB,
   turned upright by the file's orientation. LibRaw prints nothing (no callbacks); every error is a code. */
#include <string.h>
#include <libraw/libraw.h>

#define CRAW_FUNCTIONS(X) X(libraw_init) X(libraw_open_buffer) X(libraw_unpack) X(libraw_dcraw_process) \
    X(libraw_dcraw_make_mem_image) X(libraw_dcraw_clear_mem) X(libraw_close) X(libraw_strerror)

#define CRAW_STR2(x) #x
#define CRAW_STR(x) CRAW_STR2(x)
/* The soname of the LibRaw these headers are: its structures' layout is compiled in. */
MP_DYNAMIC_TABLE(craw, CRAW_FUNCTIONS, "libraw_r.so." CRAW_STR(LIBRAW_SHLIB_CURRENT))

/* LibRaw 0.20 crashes on some damaged files (a changed byte in a DNG's directory: SIGSEGV in
   parse_tiff_ifd, 4 of 14,157 mutated DNGs), so it runs in a child process: forked for each call, it
   writes its answer to memory shared with this one and exits; a crash or a stall costs only the child.
   The child runs this C alone (no Swift), with the crash signals back at their defaults. */
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* What the child reports. `code`: 0, a LibRaw error code, or one of CRAW_CRASHED, CRAW_TIMEOUT,
   CRAW_NO_ROOM below. */
typedef struct craw_answer {
    int code;
    /* The picture's size on the sensor (before any halving or turn), and the samples the sensor data
       holds (masked borders too). */
    int width, height;
    long long raw_samples;
    /* LibRaw's turn of the picture, which rendering applies: 0 none, 3 a half turn, 5 and 6 a quarter. */
    int flip;
    /* RLIMIT_DATA the child ran under (0: none could be set), and its VmData when forked. */
    long long memory_limit, forked_with;
    /* The rendered picture's size: 3 bytes a pixel, rows packed, after this header's page. */
    int out_width, out_height;
} craw_answer;

enum { CRAW_CRASHED = -200001, CRAW_TIMEOUT = -200002, CRAW_NO_ROOM = -200003, CRAW_NO_PROCESS = -200004 };

/* Memory the child writes into: the answer, then room for `capacity` bytes of pixels. Shared, and
   reserved only as it is touched. NULL when it cannot be mapped. */
static inline void *_Nullable craw_shared_alloc(size_t capacity) {
    void *p = mmap(NULL, 4096 + capacity, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}
static inline void craw_shared_free(void *_Nonnull shared, size_t capacity) { munmap(shared, 4096 + capacity); }
static inline const unsigned char *_Nonnull craw_shared_pixels(const void *_Nonnull shared) { return (const unsigned char *)shared + 4096; }

/* In the child: open; with `render` 1 demosaic (with `half`: each 2×2 block of the mosaic one pixel,
   half the sides, no interpolation) into 8-bit sRGB with the camera's white balance; with 2 only read
   the sensor data (what `check` asks: a layout LibRaw cannot read fails there, as in `prepare`). */
static inline void craw_child(const craw *t, craw_answer *a, unsigned char *pixels, size_t capacity,
                       const void *data, size_t size, unsigned max_mb, int render, int half) {
    libraw_data_t *raw = t->libraw_init(LIBRAW_OPIONS_NO_MEMERR_CALLBACK | LIBRAW_OPIONS_NO_DATAERR_CALLBACK);
    if (!raw) { a->code = LIBRAW_UNSUFFICIENT_MEMORY; return; }
    raw->params.max_raw_memory_mb = max_mb;
    int e = t->libraw_open_buffer(raw, (void *)data, size);
    if (e == LIBRAW_SUCCESS) {
        a->width = raw->sizes.width;
        a->height = raw->sizes.height;
        a->raw_samples = (long long)raw->sizes.raw_width * raw->sizes.raw_height;
        a->flip = raw->sizes.flip;
    }
    if (e == LIBRAW_SUCCESS && render == 2) e = t->libraw_unpack(raw);
    if (e == LIBRAW_SUCCESS && render == 1) {
        raw->params.half_size = half;
        raw->params.output_bps = 8;
        raw->params.use_camera_wb = 1;
        raw->params.output_color = 1;  /* sRGB */
        e = t->libraw_unpack(raw);
        if (e == LIBRAW_SUCCESS) e = t->libraw_dcraw_process(raw);
        if (e == LIBRAW_SUCCESS) {
            libraw_processed_image_t *o = t->libraw_dcraw_make_mem_image(raw, &e);
            if (!o) {
                /* Its picture's malloc failing is reported as errno's ENOMEM, not LibRaw's code. */
                e = e == ENOMEM ? LIBRAW_UNSUFFICIENT_MEMORY : e == LIBRAW_SUCCESS ? LIBRAW_UNSPECIFIED_ERROR : e;
            } else {
                size_t bytes = (size_t)o->width * o->height * 3;
                if (o->type != LIBRAW_IMAGE_BITMAP || o->colors != 3 || o->bits != 8 || (size_t)o->data_size != bytes) e = LIBRAW_UNSPECIFIED_ERROR;
                else if (bytes > capacity) e = CRAW_NO_ROOM;
                else {
                    memcpy(pixels, o->data, bytes);
                    a->out_width = o->width;
                    a->out_height = o->height;
                }
                t->libraw_dcraw_clear_mem(o);
            }
        }
    }
    t->libraw_close(raw);
    a->code = e;
}

/* In the child: its private writable memory (what RLIMIT_DATA counts: the heap, anonymous mappings,
   thread stacks) held to what it was forked with plus `allowance` bytes, and the limit reported in
   `a`. A LibRaw allocation past it fails, which LibRaw reports as out of memory (or the child dies):
   never the machine's memory. glibc's arenas are reserved without write access, so unlike RLIMIT_AS
   this counts only what is used. Heap the parent had freed is counted already: the child may reuse it
   on top, so its footprint stays within the parent's at the fork plus the allowance. */
static inline void craw_limit_memory(craw_answer *a, size_t allowance) {
    int fd = open("/proc/self/status", O_RDONLY);
    if (fd < 0) return;
    char text[4096];
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    if (n <= 0) return;
    text[n] = 0;
    const char *at = strstr(text, "VmData:");
    unsigned long long kb = at ? strtoull(at + 7, NULL, 10) : 0;
    if (kb == 0) return;
    struct rlimit r;
    a->forked_with = (long long)(kb * 1024ULL);
    r.rlim_cur = r.rlim_max = (rlim_t)(kb * 1024ULL + allowance);
    if (setrlimit(RLIMIT_DATA, &r) == 0) a->memory_limit = (long long)r.rlim_cur;
}

/* Runs one call in a child process, its new memory held to `allowance` bytes, and waits at most
   `seconds` for it (then kills it). The answer is in `shared` (craw_shared_alloc of `capacity`): its
   code says what happened, CRAW_CRASHED when the child died of a signal. */
static inline void craw_run(const craw *_Nonnull t, void *_Nonnull shared, size_t capacity, const void *_Nonnull data, size_t size,
                            unsigned max_mb, int render, int half, size_t allowance, double seconds) {
    craw_answer *a = (craw_answer *)shared;
    memset(a, 0, sizeof *a);
    a->code = CRAW_CRASHED;  /* what stays if the child dies before it answers */
    pid_t pid = fork();
    if (pid < 0) { a->code = CRAW_NO_PROCESS; return; }
    if (pid == 0) {
        int crashes[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP };
        for (size_t i = 0; i < sizeof crashes / sizeof crashes[0]; i++) signal(crashes[i], SIG_DFL);
        craw_limit_memory(a, allowance);
        craw_child(t, a, (unsigned char *)shared + 4096, capacity, data, size, max_mb, render, half);
        _exit(0);
    }
    struct timespec start, now, pause = { 0, 1000000 };
    clock_gettime(CLOCK_MONOTONIC, &start);
    int status = 0;
    for (;;) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid) break;
        if (r < 0 && errno != EINTR) { a->code = CRAW_CRASHED; return; }
        clock_gettime(CLOCK_MONOTONIC, &now);
        if ((double)(now.tv_sec - start.tv_sec) + (double)(now.tv_nsec - start.tv_nsec) / 1e9 > seconds) {
            kill(pid, SIGKILL);
            while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
            a->code = CRAW_TIMEOUT;
            return;
        }
        nanosleep(&pause, NULL);
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) a->code = CRAW_CRASHED;
}
#endif
