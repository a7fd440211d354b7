/*
 * ucp_get_bench — the C reference for the sidecar's raw read path.
 *
 * An "agent" UCP worker owns a memory region (a mmap()ed file registered with
 * ucp_mem_map(address), as the Java agent does, or memory UCX allocates) and is
 * progressed by its own thread; a "client" worker connects to the agent's
 * listener, learns address + packed rkey through an active-message handshake,
 * and measures ucp_get_nbx: one-outstanding latency (p50/p99) and pipelined
 * bandwidth (N outstanding), printing one JSON line per size on stdout.
 *
 * Agent and client are separate processes by default (--procs 2, fork), like
 * agent and sidecar in production; --procs 1 runs them as two threads of one
 * process (like a single-JVM test). Peer error handling is on, with
 * UCX_POSIX_ERROR_HANDLING=y / UCX_SYSV_ERROR_HANDLING=y defaulted so shared
 * memory stays usable (see shared/docs/ucx-notes.md).
 *
 * The region's bytes are a pure function of (seed, offset), so the client
 * checks what it received without a second copy of the region.
 *
 * Build: gcc -O2 -Wall -o ucp_get_bench ucp_get_bench.c -lucp -lucs -lpthread
 */
#define _GNU_SOURCE
#include <ucp/api/ucp.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define AM_HELLO 1
#define AM_REGION 2
#define AM_BYE 3

#define DIE(...) do { fprintf(stderr, "ucp_get_bench: " __VA_ARGS__); \
                      fputc('\n', stderr); exit(2); } while (0)
#define CHECK(st, what) do { ucs_status_t s_ = (st); if (s_ != UCS_OK) \
        DIE("%s: %s", what, ucs_status_string(s_)); } while (0)

/* ---------- options ---------- */

struct options {
    const char *tls;          /* UCX_TLS value, also the "tls" label */
    const char *mem;          /* "file" | "ucx" */
    const char *file_dir;     /* where the region file is written */
    size_t region;            /* bytes in the agent's region */
    size_t sizes[16];
    int nsizes;
    long lat_iters;           /* max one-outstanding samples per size */
    long warmup;
    double lat_seconds;       /* time budget of the latency phase per size */
    double bw_seconds;        /* duration of the bandwidth phase per size */
    int window;               /* outstanding gets in the bandwidth phase */
    int procs;                /* 2: fork agent, 1: agent thread */
    int agent_spin_us;        /* agent: busy-progress this long before sleeping */
    int agent_busy;           /* agent: never sleep */
    ucp_err_handling_mode_t err_mode;  /* of both endpoints */
    int one_sided_check;      /* stop the agent (SIGSTOP) and see whether gets still complete */
    int verbose;
    uint64_t seed;
};

static struct options opt = {
    .tls = NULL, .mem = "file", .file_dir = "/tmp", .region = 64u << 20,
    .nsizes = 0, .lat_iters = 20000, .warmup = 1000, .lat_seconds = 2.0,
    .bw_seconds = 1.0, .window = 16, .procs = 2, .agent_spin_us = 100,
    .agent_busy = 0, .err_mode = UCP_ERR_HANDLING_MODE_PEER, .one_sided_check = 0, .verbose = 0,
    .seed = 0x5eaf00d5eedULL,
};
static pid_t agent_pid;       /* --procs 2: the agent process */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static size_t parse_size(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || v <= 0) DIE("bad size '%s'", s);
    switch (*end) {
    case 'k': case 'K': v *= 1024; end++; break;
    case 'm': case 'M': v *= 1024 * 1024; end++; break;
    case 'g': case 'G': v *= 1024.0 * 1024 * 1024; end++; break;
    }
    if (*end) DIE("bad size '%s' (use e.g. 4K, 64K, 1M)", s);
    return (size_t)v;
}

/* ---------- region contents: word i of the region is mix(seed ^ i) ---------- */

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

static void fill_region(uint64_t *words, size_t bytes, uint64_t seed)
{
    for (size_t i = 0; i < bytes / 8; i++) words[i] = mix(seed ^ i);
}

static uint64_t fnv_step(uint64_t h, uint64_t w)
{
    return (h ^ w) * 0x100000001b3ULL;
}

static uint64_t checksum_buf(const void *buf, size_t bytes)
{
    const uint64_t *w = buf;
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < bytes / 8; i++) h = fnv_step(h, w[i]);
    return h;
}

static uint64_t checksum_expected(uint64_t seed, size_t offset, size_t bytes)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = offset / 8; i < (offset + bytes) / 8; i++) h = fnv_step(h, mix(seed ^ i));
    return h;
}

/* ---------- common UCX setup ---------- */

static ucp_context_h make_context(void)
{
    /* Defaults only: an explicit UCX_* in the environment wins. Set only where shared memory may be
     * used, or UCX warns that they are unused. */
    if (opt.tls) setenv("UCX_TLS", opt.tls, 1);
    const char *tls = getenv("UCX_TLS");
    if (!tls || strstr(tls, "all") || strstr(tls, "shm") || strstr(tls, "sm") || strstr(tls, "posix") ||
        strstr(tls, "sysv")) {
        setenv("UCX_POSIX_ERROR_HANDLING", "y", 0);
        setenv("UCX_SYSV_ERROR_HANDLING", "y", 0);
    }

    ucp_config_t *config;
    CHECK(ucp_config_read(NULL, NULL, &config), "ucp_config_read");
    ucp_params_t params = {
        .field_mask = UCP_PARAM_FIELD_FEATURES,
        .features = UCP_FEATURE_RMA | UCP_FEATURE_AM | UCP_FEATURE_WAKEUP,
    };
    ucp_context_h ctx;
    CHECK(ucp_init(&params, config, &ctx), "ucp_init");
    ucp_config_release(config);
    return ctx;
}

static ucp_worker_h make_worker(ucp_context_h ctx)
{
    ucp_worker_params_t wp = {
        .field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
        .thread_mode = UCS_THREAD_MODE_SINGLE,
    };
    ucp_worker_h w;
    CHECK(ucp_worker_create(ctx, &wp, &w), "ucp_worker_create");
    return w;
}

static void wait_request(ucp_worker_h w, void *req, const char *what)
{
    if (req == NULL) return;
    if (UCS_PTR_IS_ERR(req)) DIE("%s: %s", what, ucs_status_string(UCS_PTR_STATUS(req)));
    ucs_status_t st;
    while ((st = ucp_request_check_status(req)) == UCS_INPROGRESS) ucp_worker_progress(w);
    ucp_request_free(req);
    if (st != UCS_OK) DIE("%s: %s", what, ucs_status_string(st));
}

static void send_am(ucp_worker_h w, ucp_ep_h ep, unsigned id, const void *buf, size_t len)
{
    ucp_request_param_t p = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
        .flags = UCP_AM_SEND_FLAG_REPLY,
    };
    wait_request(w, ucp_am_send_nbx(ep, id, NULL, 0, buf, len, &p), "ucp_am_send_nbx");
}

static void close_ep(ucp_worker_h w, ucp_ep_h ep)
{
    ucp_request_param_t p = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
        .flags = UCP_EP_CLOSE_FLAG_FORCE,
    };
    void *req = ucp_ep_close_nbx(ep, &p);
    if (req && !UCS_PTR_IS_ERR(req)) {
        while (ucp_request_check_status(req) == UCS_INPROGRESS) ucp_worker_progress(w);
        ucp_request_free(req);
    }
}

static void set_am_handler(ucp_worker_h w, unsigned id, ucp_am_recv_callback_t cb, void *arg)
{
    ucp_am_handler_param_t hp = {
        .field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB |
                      UCP_AM_HANDLER_PARAM_FIELD_ARG,
        .id = id, .cb = cb, .arg = arg,
    };
    CHECK(ucp_worker_set_am_recv_handler(w, &hp), "ucp_worker_set_am_recv_handler");
}

/* ---------- agent ---------- */

struct region_msg {
    uint64_t address, length, seed, rkey_len;
    /* packed rkey follows */
};

struct agent {
    ucp_context_h ctx;
    ucp_worker_h worker;
    ucp_listener_h listener;
    ucp_mem_h memh;
    void *base;
    int fd;
    char path[4096];
    ucp_conn_request_h conn_request;
    ucp_ep_h ep;
    int hello, done;
    volatile int stop;        /* set by the owner (thread mode) before ucp_worker_signal */
    uint16_t port;
};

static void agent_conn_cb(ucp_conn_request_h req, void *arg)
{
    struct agent *a = arg;
    if (a->conn_request || a->ep) { ucp_listener_reject(a->listener, req); return; }
    a->conn_request = req;    /* the endpoint is created outside the callback */
}

static ucs_status_t agent_am_cb(void *arg, const void *h, size_t hl, void *data, size_t len,
                                const ucp_am_recv_param_t *p)
{
    (void)h; (void)hl; (void)data; (void)len; (void)p;
    struct agent *a = arg;
    a->hello = 1;
    return UCS_OK;
}

static ucs_status_t agent_bye_cb(void *arg, const void *h, size_t hl, void *data, size_t len,
                                 const ucp_am_recv_param_t *p)
{
    (void)h; (void)hl; (void)data; (void)len; (void)p;
    ((struct agent *)arg)->done = 1;
    return UCS_OK;
}

static void agent_ep_err(void *arg, ucp_ep_h ep, ucs_status_t st)
{
    (void)ep;
    struct agent *a = arg;
    if (!a->done && opt.verbose) fprintf(stderr, "agent: client endpoint error: %s\n", ucs_status_string(st));
    a->done = 1;
}

static void agent_map_memory(struct agent *a)
{
    ucp_mem_map_params_t mp = { 0 };
    mp.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH |
                    UCP_MEM_MAP_PARAM_FIELD_FLAGS;
    mp.length = opt.region;
    if (strcmp(opt.mem, "file") == 0) {
        /* Like the Java agent: a read-only shared mapping of a file on disk, registered by address. */
        snprintf(a->path, sizeof a->path, "%s/ucp_get_bench.%d.region", opt.file_dir, (int)getpid());
        int fd = open(a->path, O_RDWR | O_CREAT | O_TRUNC, 0600);
        if (fd < 0) DIE("cannot create %s: %s", a->path, strerror(errno));
        uint64_t *tmp = malloc(opt.region);
        if (!tmp) DIE("out of memory");
        fill_region(tmp, opt.region, opt.seed);
        for (size_t off = 0; off < opt.region;) {
            ssize_t n = write(fd, (char *)tmp + off, opt.region - off);
            if (n <= 0) DIE("write %s: %s", a->path, strerror(errno));
            off += n;
        }
        free(tmp);
        a->base = mmap(NULL, opt.region, PROT_READ, MAP_SHARED, fd, 0);
        if (a->base == MAP_FAILED) DIE("mmap %s: %s", a->path, strerror(errno));
        a->fd = fd;
        mp.address = a->base;
        mp.flags = UCP_MEM_MAP_NONBLOCK;   /* what JUCX's nonBlocking() asks for */
        CHECK(ucp_mem_map(a->ctx, &mp, &a->memh), "ucp_mem_map(file)");
    } else if (strcmp(opt.mem, "ucx") == 0) {
        mp.address = NULL;
        mp.flags = UCP_MEM_MAP_ALLOCATE;
        CHECK(ucp_mem_map(a->ctx, &mp, &a->memh), "ucp_mem_map(allocate)");
        ucp_mem_attr_t attr = { .field_mask = UCP_MEM_ATTR_FIELD_ADDRESS };
        CHECK(ucp_mem_query(a->memh, &attr), "ucp_mem_query");
        a->base = attr.address;
        a->fd = -1;
        fill_region(a->base, opt.region, opt.seed);
    } else {
        DIE("--mem must be 'file' or 'ucx', not '%s'", opt.mem);
    }
}

static void agent_setup(struct agent *a)
{
    memset(a, 0, sizeof *a);
    a->ctx = make_context();
    a->worker = make_worker(a->ctx);
    agent_map_memory(a);
    set_am_handler(a->worker, AM_HELLO, agent_am_cb, a);
    set_am_handler(a->worker, AM_BYE, agent_bye_cb, a);

    struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = 0 };
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ucp_listener_params_t lp = {
        .field_mask = UCP_LISTENER_PARAM_FIELD_SOCK_ADDR | UCP_LISTENER_PARAM_FIELD_CONN_HANDLER,
        .sockaddr = { .addr = (struct sockaddr *)&sin, .addrlen = sizeof sin },
        .conn_handler = { .cb = agent_conn_cb, .arg = a },
    };
    CHECK(ucp_listener_create(a->worker, &lp, &a->listener), "ucp_listener_create");
    ucp_listener_attr_t la = { .field_mask = UCP_LISTENER_ATTR_FIELD_SOCKADDR };
    CHECK(ucp_listener_query(a->listener, &la), "ucp_listener_query");
    a->port = ntohs(((struct sockaddr_in *)&la.sockaddr)->sin_port);
}

static void agent_send_region(struct agent *a)
{
    void *rkey_buf;
    size_t rkey_len;
    CHECK(ucp_rkey_pack(a->ctx, a->memh, &rkey_buf, &rkey_len), "ucp_rkey_pack");
    size_t len = sizeof(struct region_msg) + rkey_len;
    struct region_msg *m = malloc(len);
    m->address = (uintptr_t)a->base;
    m->length = opt.region;
    m->seed = opt.seed;
    m->rkey_len = rkey_len;
    memcpy(m + 1, rkey_buf, rkey_len);
    ucp_rkey_buffer_release(rkey_buf);
    send_am(a->worker, a->ep, AM_REGION, m, len);
    free(m);
}

/* The owner loop: progress until idle, spin briefly, then sleep on the worker's event fd. */
static void agent_loop(struct agent *a)
{
    double spin_s = opt.agent_spin_us * 1e-6;
    double idle_since = now_s();
    while (!a->stop && !a->done) {
        if (ucp_worker_progress(a->worker)) { idle_since = 0; continue; }
        if (a->conn_request) {
            ucp_ep_params_t ep = {
                .field_mask = UCP_EP_PARAM_FIELD_CONN_REQUEST | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE |
                              UCP_EP_PARAM_FIELD_ERR_HANDLER,
                .conn_request = a->conn_request,
                .err_mode = opt.err_mode,
                .err_handler = { .cb = agent_ep_err, .arg = a },
            };
            CHECK(ucp_ep_create(a->worker, &ep, &a->ep), "agent ucp_ep_create");
            a->conn_request = NULL;
            continue;
        }
        if (a->hello && a->ep) { a->hello = 0; agent_send_region(a); continue; }
        if (opt.agent_busy) continue;
        double t = now_s();
        if (idle_since == 0) idle_since = t;
        if (t - idle_since < spin_s) continue;
        ucs_status_t st = ucp_worker_arm(a->worker);
        if (st == UCS_ERR_BUSY) continue;          /* events pending: progress again */
        CHECK(st, "ucp_worker_arm");
        if (a->stop || a->done) break;
        ucp_worker_wait(a->worker);
        idle_since = 0;
    }
}

static void agent_teardown(struct agent *a)
{
    if (a->ep) close_ep(a->worker, a->ep);
    ucp_listener_destroy(a->listener);
    ucp_mem_unmap(a->ctx, a->memh);
    if (a->fd >= 0) { munmap(a->base, opt.region); close(a->fd); unlink(a->path); }
    ucp_worker_destroy(a->worker);
    ucp_cleanup(a->ctx);
}

static void *agent_thread(void *arg)
{
    agent_loop(arg);
    return NULL;
}

/* ---------- client ---------- */

struct client {
    ucp_context_h ctx;
    ucp_worker_h worker;
    ucp_ep_h ep;
    ucp_rkey_h rkey;
    uint64_t raddr, rlen, seed;
    int have_region;
    int closing;              /* the agent may drop the endpoint first: not an error then */
    ucp_mem_h local_memh;
    char *local;              /* window * max size, registered */
    char lanes[256];
};

static ucs_status_t client_region_cb(void *arg, const void *h, size_t hl, void *data, size_t len,
                                     const ucp_am_recv_param_t *p)
{
    (void)h; (void)hl; (void)p;
    struct client *c = arg;
    const struct region_msg *m = data;
    if (len < sizeof *m || len < sizeof *m + m->rkey_len) DIE("short region message");
    c->raddr = m->address;
    c->rlen = m->length;
    c->seed = m->seed;
    CHECK(ucp_ep_rkey_unpack(c->ep, m + 1, &c->rkey), "ucp_ep_rkey_unpack");
    c->have_region = 1;
    return UCS_OK;
}

static void client_ep_err(void *arg, ucp_ep_h ep, ucs_status_t st)
{
    (void)ep;
    if (((struct client *)arg)->closing) return;
    DIE("client endpoint error: %s", ucs_status_string(st));
}

static void append(char *list, size_t cap, const char *item)
{
    if (strstr(list, item)) return;
    size_t used = strlen(list);
    snprintf(list + used, cap - used, "%s%s", used ? "," : "", item);
}

/* One line naming the lanes UCP chose, e.g. "get=posix/memory rma_bw=tcp/lo am=sysv/memory":
 * "get" lanes read UCX-allocated shared memory one-sidedly; memory only the tcp md can register
 * is read over the rma_bw lanes, emulated with messages the owner must progress. */
static void describe_lanes(struct client *c)
{
    char *text = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&text, &n);
    ucp_ep_print_info(c->ep, f);
    fclose(f);
    if (opt.verbose) fputs(text, stderr);
    char names[16][64] = { { 0 } };
    char get[96] = "", rma_bw[96] = "", am[96] = "";
    for (char *save = NULL, *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        int idx;
        char name[64];
        char *lane = strstr(line, "lane["), *get_line = strstr(line, "get[");
        /* "#   lane[1]:  2:sysv/memory.0 md[1]  -> md[1]/sysv/sysdev[255] am am_bw#0 keepalive" */
        if (lane && sscanf(lane, "lane[%d]: %*d:%63[^. ]", &idx, name) == 2 && idx >= 0 && idx < 16) {
            strcpy(names[idx], name);
            char *arrow = strstr(line, "->");
            if (arrow && strstr(arrow, " rma_bw")) append(rma_bw, sizeof rma_bw, name);
            if (arrow && strstr(arrow, " am ")) append(am, sizeof am, name);
        } else if (get_line && sscanf(get_line, "get[%d]", &idx) == 1 && idx >= 0 && idx < 16 && names[idx][0]) {
            append(get, sizeof get, names[idx]);   /* "#  get[1]: 0..<bcopy>..(inf)" */
        }
    }
    snprintf(c->lanes, sizeof c->lanes, "get=%s rma_bw=%s am=%s", get[0] ? get : "-",
             rma_bw[0] ? rma_bw : "-", am[0] ? am : "-");
    free(text);
}

static void client_connect(struct client *c, uint16_t port, size_t max_size)
{
    memset(c, 0, sizeof *c);
    c->ctx = make_context();
    c->worker = make_worker(c->ctx);
    set_am_handler(c->worker, AM_REGION, client_region_cb, c);

    struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port) };
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ucp_ep_params_t ep = {
        .field_mask = UCP_EP_PARAM_FIELD_FLAGS | UCP_EP_PARAM_FIELD_SOCK_ADDR |
                      UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE | UCP_EP_PARAM_FIELD_ERR_HANDLER,
        .flags = UCP_EP_PARAMS_FLAGS_CLIENT_SERVER,
        .sockaddr = { .addr = (struct sockaddr *)&sin, .addrlen = sizeof sin },
        .err_mode = opt.err_mode,
        .err_handler = { .cb = client_ep_err, .arg = c },
    };
    CHECK(ucp_ep_create(c->worker, &ep, &c->ep), "client ucp_ep_create");

    /* Handshake before the first get: hello -> region (address, length, seed, rkey). */
    send_am(c->worker, c->ep, AM_HELLO, NULL, 0);
    double deadline = now_s() + 10;
    while (!c->have_region) {
        ucp_worker_progress(c->worker);
        if (now_s() > deadline) DIE("no region message from the agent within 10 s");
    }
    describe_lanes(c);

    /* Local landing buffers are registered once, like the sidecar's pooled registered buffers. */
    ucp_mem_map_params_t mp = {
        .field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH |
                      UCP_MEM_MAP_PARAM_FIELD_FLAGS,
        .address = NULL, .length = (size_t)opt.window * max_size, .flags = UCP_MEM_MAP_ALLOCATE,
    };
    CHECK(ucp_mem_map(c->ctx, &mp, &c->local_memh), "ucp_mem_map(local)");
    ucp_mem_attr_t attr = { .field_mask = UCP_MEM_ATTR_FIELD_ADDRESS };
    CHECK(ucp_mem_query(c->local_memh, &attr), "ucp_mem_query(local)");
    c->local = attr.address;
    memset(c->local, 0, mp.length);
}

static void *post_get(struct client *c, void *buf, size_t size, uint64_t off, ucp_request_param_t *p)
{
    void *req = ucp_get_nbx(c->ep, buf, size, c->raddr + off, c->rkey, p);
    if (UCS_PTR_IS_ERR(req)) DIE("ucp_get_nbx: %s", ucs_status_string(UCS_PTR_STATUS(req)));
    return req;
}

/* Offsets walk the whole region with a size stride so reads are not served from one hot line. */
static uint64_t offset_of(long i, size_t size)
{
    uint64_t slots = opt.region / size;
    return (uint64_t)(i % slots) * size;
}

static void verify(struct client *c, const void *buf, size_t size, uint64_t off)
{
    uint64_t got = checksum_buf(buf, size), want = checksum_expected(c->seed, off, size);
    if (got != want)
        DIE("data mismatch: size %zu offset %" PRIu64 " checksum %016" PRIx64 " expected %016" PRIx64,
            size, off, got, want);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void get_blocking(struct client *c, void *buf, size_t size, uint64_t off)
{
    ucp_request_param_t p = { .op_attr_mask = 0 };
    void *req = post_get(c, buf, size, off, &p);
    if (req == NULL) return;
    while (ucp_request_check_status(req) == UCS_INPROGRESS) ucp_worker_progress(c->worker);
    ucs_status_t st = ucp_request_check_status(req);
    ucp_request_free(req);
    if (st != UCS_OK) DIE("get failed: %s", ucs_status_string(st));
}

static const double PCTS[] = { 1, 10, 25, 50, 75, 90, 95, 99, 99.9 };
#define NPCTS (sizeof PCTS / sizeof PCTS[0])

struct latency { double p50, p99, mean, pcts[NPCTS]; long n; };

static struct latency measure_latency(struct client *c, size_t size)
{
    char *buf = c->local;
    /* Correctness first: one get at an offset that is not the region's start. */
    uint64_t check_off = offset_of(7, size);
    memset(buf, 0, size);
    get_blocking(c, buf, size, check_off);
    verify(c, buf, size, check_off);

    for (long i = 0; i < opt.warmup; i++) get_blocking(c, buf, size, offset_of(i, size));

    double *lat = malloc(sizeof(double) * opt.lat_iters);
    double end = now_s() + opt.lat_seconds, sum = 0;
    long n = 0;
    while (n < opt.lat_iters && (n < 100 || now_s() < end)) {
        double t0 = now_s();
        get_blocking(c, buf, size, offset_of(opt.warmup + n, size));   /* not the warm-up's lines */
        double dt = (now_s() - t0) * 1e6;
        lat[n++] = dt;
        sum += dt;
    }
    qsort(lat, n, sizeof(double), cmp_double);
    struct latency r = { .p50 = lat[n / 2], .p99 = lat[(long)(n * 0.99)], .mean = sum / n, .n = n };
    for (size_t k = 0; k < NPCTS; k++) r.pcts[k] = lat[(long)(n * PCTS[k] / 100)];
    free(lat);
    return r;
}

struct bw_state { long completed; };

static void bw_done(void *req, ucs_status_t st, void *user)
{
    if (st != UCS_OK) DIE("pipelined get failed: %s", ucs_status_string(st));
    ((struct bw_state *)user)->completed++;
    ucp_request_free(req);
}

/* Keep `window` gets in flight for bw_seconds; each slot has its own landing buffer. */
static double measure_bandwidth(struct client *c, size_t size, double *ops_s)
{
    struct bw_state s = { 0 };
    ucp_request_param_t p = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA,
        .cb.send = bw_done, .user_data = &s,
    };
    uint64_t *slot_off = calloc(opt.window, sizeof(uint64_t));
    long posted = 0;
    double t0 = 0, end = 0;
    long base = 0;
    long warm = opt.window * 4L;
    for (;;) {
        if (posted == warm && t0 == 0 && s.completed == warm) {
            t0 = now_s();
            end = t0 + opt.bw_seconds;
            base = s.completed;
        }
        int timing = t0 != 0;
        if (timing && now_s() >= end) break;
        /* Bounded: a get that completes at once (one-sided shared memory) frees its slot immediately. */
        for (int burst = 0; burst < opt.window && posted - s.completed < opt.window &&
                            (timing || posted < warm); burst++) {
            int slot = posted % opt.window;
            slot_off[slot] = offset_of(posted, size);
            if (post_get(c, c->local + (size_t)slot * size, size, slot_off[slot], &p) == NULL)
                s.completed++;   /* completed at once; no callback */
            posted++;
        }
        ucp_worker_progress(c->worker);
    }
    double t1 = now_s();
    long done = s.completed - base;
    while (s.completed < posted) ucp_worker_progress(c->worker);
    /* Every slot now holds the last get posted into it. */
    for (int k = 0; k < opt.window && k < posted; k++)
        verify(c, c->local + (size_t)k * size, size, slot_off[k]);
    free(slot_off);
    *ops_s = done / (t1 - t0);
    return done * (double)size / (t1 - t0) / 1e9;
}

/* Flush while the agent still listens, then say bye; from then on the agent may drop the endpoint. */
static void client_close(struct client *c)
{
    wait_request(c->worker, ucp_ep_flush_nbx(c->ep, &(ucp_request_param_t){ .op_attr_mask = 0 }),
                 "ucp_ep_flush_nbx");
    ucp_rkey_destroy(c->rkey);
    c->closing = 1;
    void *req = ucp_am_send_nbx(c->ep, AM_BYE, NULL, 0, NULL, 0, &(ucp_request_param_t){ .op_attr_mask = 0 });
    if (req && !UCS_PTR_IS_ERR(req)) {
        while (ucp_request_check_status(req) == UCS_INPROGRESS) ucp_worker_progress(c->worker);
        ucp_request_free(req);
    }
    close_ep(c->worker, c->ep);
    ucp_mem_unmap(c->ctx, c->local_memh);
    ucp_worker_destroy(c->worker);
    ucp_cleanup(c->ctx);
}

/*
 * Whether a get is one-sided: the agent process is stopped (SIGSTOP) and gets of each size are posted. A get that a
 * transport serves from the agent's memory without its thread (cma, an RDMA NIC) completes; one that UCX emulates
 * with active messages waits for the agent. Prints one JSON line per size; the agent is continued afterwards.
 */
static void check_one_sided(struct client *c)
{
    const double wait_s = 1.0;
    if (kill(agent_pid, SIGSTOP)) DIE("SIGSTOP: %s", strerror(errno));
    for (int i = 0; i < opt.nsizes; i++) {
        size_t size = opt.sizes[i];
        ucp_request_param_t p = { .op_attr_mask = 0 };
        void *req = post_get(c, c->local, size, 0, &p);
        ucs_status_t st = UCS_OK;
        if (req != NULL) {
            double deadline = now_s() + wait_s;
            while ((st = ucp_request_check_status(req)) == UCS_INPROGRESS && now_s() < deadline)
                ucp_worker_progress(c->worker);
            if (st == UCS_INPROGRESS) {
                kill(agent_pid, SIGCONT);   /* let the emulated get finish before the request is freed */
                while (ucp_request_check_status(req) == UCS_INPROGRESS) ucp_worker_progress(c->worker);
                kill(agent_pid, SIGSTOP);
            }
            ucp_request_free(req);
        }
        if (st == UCS_OK) verify(c, c->local, size, 0);
        printf("{\"impl\":\"c-ucp\",\"kind\":\"one-sided-check\",\"size\":%zu,\"err_mode\":\"%s\","
               "\"one_sided\":%s,\"lanes\":\"%s\"}\n", size,
               opt.err_mode == UCP_ERR_HANDLING_MODE_PEER ? "peer" : "none",
               st == UCS_OK ? "true" : "false", c->lanes);
        fflush(stdout);
    }
    kill(agent_pid, SIGCONT);
}

static void run_client(uint16_t port)
{
    size_t max_size = 0;
    for (int i = 0; i < opt.nsizes; i++) if (opt.sizes[i] > max_size) max_size = opt.sizes[i];
    struct client c;
    client_connect(&c, port, max_size);
    if (opt.one_sided_check) {
        check_one_sided(&c);
        client_close(&c);
        return;
    }
    const char *tls = getenv("UCX_TLS") ? getenv("UCX_TLS") : "all";
    for (int i = 0; i < opt.nsizes; i++) {
        size_t size = opt.sizes[i];
        struct latency l = measure_latency(&c, size);
        double ops;
        double gbps = measure_bandwidth(&c, size, &ops);
        char pcts[512] = "";
        for (size_t k = 0; k < NPCTS; k++) {
            size_t used = strlen(pcts);
            snprintf(pcts + used, sizeof pcts - used, "%s\"%g\":%.2f", k ? "," : "", PCTS[k], l.pcts[k]);
        }
        printf("{\"impl\":\"c-ucp\",\"kind\":\"get\",\"tls\":\"%s\",\"mem\":\"%s\",\"procs\":%d,"
               "\"size\":%zu,\"p50_us\":%.2f,\"p99_us\":%.2f,\"mean_us\":%.2f,\"lat_samples\":%ld,"
               "\"gbps\":%.3f,\"ops_s\":%.0f,\"window\":%d,\"agent_progress\":\"%s\","
               "\"lanes\":\"%s\",\"verified\":true,\"pcts_us\":{%s}}\n",
               tls, opt.mem, opt.procs, size, l.p50, l.p99, l.mean, l.n, gbps, ops, opt.window,
               opt.agent_busy ? "busy" : "spin-then-wait", c.lanes, pcts);
        fflush(stdout);
    }
    client_close(&c);
}

/* ---------- main ---------- */

static void usage(void)
{
    fprintf(stderr,
        "usage: ucp_get_bench [options]\n"
        "  --tls LIST        UCX_TLS for both workers (default: the environment's, else all)\n"
        "  --mem file|ucx    agent memory: mmap()ed file registered by address, or UCX-allocated (file)\n"
        "  --dir DIR         where the region file is written (/tmp)\n"
        "  --region SIZE     agent region size (64M)\n"
        "  --sizes A,B,...   get sizes (4K,64K,1M)\n"
        "  --iters N         max latency samples per size (20000)\n"
        "  --lat-seconds S   latency time budget per size (2)\n"
        "  --warmup N        warm-up gets per size (1000)\n"
        "  --bw-seconds S    bandwidth phase per size (1)\n"
        "  --window N        outstanding gets in the bandwidth phase (16)\n"
        "  --procs 1|2       agent in a forked process (2) or a thread (1) (2)\n"
        "  --agent-spin-us N agent busy-progresses N us before sleeping on its event fd (100)\n"
        "  --agent-busy      agent never sleeps\n"
        "  --err-mode peer|none  endpoints' peer error handling (peer, as the sidecar and agent)\n"
        "  --one-sided-check stop the agent process and report, per size, whether a get completes without it\n"
        "  -v                print the endpoint configuration (lanes) on stderr\n");
    exit(2);
}

static void parse_args(int argc, char **argv)
{
    static struct option lo[] = {
        { "tls", 1, 0, 't' }, { "mem", 1, 0, 'm' }, { "dir", 1, 0, 'd' }, { "region", 1, 0, 'r' },
        { "sizes", 1, 0, 's' }, { "iters", 1, 0, 'i' }, { "lat-seconds", 1, 0, 'L' },
        { "warmup", 1, 0, 'w' }, { "bw-seconds", 1, 0, 'B' }, { "window", 1, 0, 'W' },
        { "procs", 1, 0, 'p' }, { "agent-spin-us", 1, 0, 'S' }, { "agent-busy", 0, 0, 'b' },
        { "err-mode", 1, 0, 'e' }, { "one-sided-check", 0, 0, 'o' }, { "help", 0, 0, 'h' }, { 0, 0, 0, 0 },
    };
    int ch;
    while ((ch = getopt_long(argc, argv, "vh", lo, NULL)) != -1) {
        switch (ch) {
        case 't': opt.tls = optarg; break;
        case 'm': opt.mem = optarg; break;
        case 'd': opt.file_dir = optarg; break;
        case 'r': opt.region = parse_size(optarg); break;
        case 's': {
            char *copy = strdup(optarg);
            opt.nsizes = 0;
            for (char *t = strtok(copy, ","); t; t = strtok(NULL, ",")) {
                if (opt.nsizes == 16) DIE("at most 16 sizes");
                opt.sizes[opt.nsizes++] = parse_size(t);
            }
            free(copy);
            break;
        }
        case 'i': opt.lat_iters = atol(optarg); break;
        case 'L': opt.lat_seconds = atof(optarg); break;
        case 'w': opt.warmup = atol(optarg); break;
        case 'B': opt.bw_seconds = atof(optarg); break;
        case 'W': opt.window = atoi(optarg); break;
        case 'p': opt.procs = atoi(optarg); break;
        case 'S': opt.agent_spin_us = atoi(optarg); break;
        case 'b': opt.agent_busy = 1; break;
        case 'e':
            if (!strcmp(optarg, "peer")) opt.err_mode = UCP_ERR_HANDLING_MODE_PEER;
            else if (!strcmp(optarg, "none")) opt.err_mode = UCP_ERR_HANDLING_MODE_NONE;
            else DIE("--err-mode must be peer or none");
            break;
        case 'o': opt.one_sided_check = 1; break;
        case 'v': opt.verbose = 1; break;
        default: usage();
        }
    }
    if (optind != argc) usage();
    if (opt.nsizes == 0) {
        opt.sizes[0] = 4096; opt.sizes[1] = 65536; opt.sizes[2] = 1 << 20; opt.nsizes = 3;
    }
    if (opt.procs != 1 && opt.procs != 2) DIE("--procs must be 1 or 2");
    if (opt.one_sided_check && opt.procs != 2) DIE("--one-sided-check needs the agent in its own process (--procs 2)");
    if (opt.window < 1 || opt.window > 1024) DIE("--window must be 1..1024");
    if (opt.lat_iters < 100) DIE("--iters must be at least 100");
    if (opt.region % 8) DIE("--region must be a multiple of 8");
    for (int i = 0; i < opt.nsizes; i++)
        if (opt.sizes[i] % 8 || opt.sizes[i] > opt.region)
            DIE("size %zu must be a multiple of 8 and fit the region (%zu)", opt.sizes[i], opt.region);
}

int main(int argc, char **argv)
{
    parse_args(argc, argv);
    if (opt.tls) setenv("UCX_TLS", opt.tls, 1);

    if (opt.procs == 1) {
        struct agent a;
        agent_setup(&a);
        pthread_t th;
        pthread_create(&th, NULL, agent_thread, &a);
        run_client(a.port);
        a.stop = 1;
        ucp_worker_signal(a.worker);
        pthread_join(th, NULL);
        agent_teardown(&a);
        return 0;
    }

    /* Two processes: fork before any UCX state exists; the agent sends its port through a pipe. */
    int pfd[2];
    if (pipe(pfd)) DIE("pipe: %s", strerror(errno));
    pid_t pid = fork();
    if (pid < 0) DIE("fork: %s", strerror(errno));
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);   /* never outlive the client */
        close(pfd[0]);
        struct agent a;
        agent_setup(&a);
        if (write(pfd[1], &a.port, sizeof a.port) != sizeof a.port) DIE("pipe write");
        close(pfd[1]);
        agent_loop(&a);
        agent_teardown(&a);
        _exit(0);
    }
    close(pfd[1]);
    uint16_t port;
    if (read(pfd[0], &port, sizeof port) != sizeof port) {
        waitpid(pid, NULL, 0);
        DIE("the agent process failed to start");
    }
    close(pfd[0]);
    agent_pid = pid;
    run_client(port);
    int status;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) DIE("the agent process failed (status %d)", status);
    return 0;
}
