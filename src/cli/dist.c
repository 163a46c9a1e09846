/*
 * Studies across MPI ranks (docs/sweep.md): under mpirun (OpenMPI or MPICH)
 * every rank parses the same command, runs its share of bnet sweep's
 * points (point p on rank p % size), and rank 0 gathers them and writes the
 * one result, the same bytes as a single process. Built with MPI only when
 * CMake finds one (BNET_MPI); a build without it refuses an mpirun launch
 * of more than one rank rather than run the study N times over.
 */
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/dist.h"

#ifdef BNET_MPI
#include <mpi.h>
#endif

/* Launched by mpirun / mpiexec (OpenMPI, MPICH's Hydra, Slurm's PMI)? */
static int launched_size(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        if (v && atoi(v) > 0)
            return atoi(v);
    }
    return 0;
}

static struct bn_cli_dist self = {.rank = 0, .size = 1};

const struct bn_cli_dist *bn_cli_dist(void)
{
    return &self;
}

int bn_cli_dist_init(int *argc, char ***argv)
{
    int n = launched_size();
    if (n == 0)
        return 0;
#ifdef BNET_MPI
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &self.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &self.size);
    MPI_Comm node; /* the ranks sharing this machine's memory */
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) ==
        MPI_SUCCESS) {
        MPI_Comm_size(node, &self.local);
        MPI_Comm_free(&node);
    }
    return 0;
#else
    (void)argc;
    (void)argv;
    if (n == 1)
        return 0;
    fprintf(stderr, "bnet: launched by mpirun with %d ranks, but this bnet was built without "
            "MPI: install libopenmpi-dev and rebuild (docs/sweep.md)\n", n);
    return 2;
#endif
}

void bn_cli_dist_finish(void)
{
#ifdef BNET_MPI
    int on = 0, off = 0;
    MPI_Initialized(&on);
    MPI_Finalized(&off);
    if (on && !off)
        MPI_Finalize();
#endif
}

int bn_cli_dist_status(int own, bool *print)
{
    *print = own != 0;
#ifdef BNET_MPI
    const struct bn_cli_dist *d = &self;
    if (d->size > 1) {
        int mine = own ? d->rank : d->size, first = d->size, st = own;
        MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        *print = first == d->rank;
        if (first == d->size)
            return 0;
        MPI_Bcast(&st, 1, MPI_INT, first, MPI_COMM_WORLD);
        return st;
    }
#endif
    return own;
}

#ifdef BNET_MPI
/* What a rank sends of each point it ran: index, results, faults. */
struct point_blob {
    uint32_t point;
    struct bn_results res;
    struct bn_fault_result faults[BN_SC_FAULTS_MAX];
};

static void send_share(const struct bn_sweep_results *res)
{
    uint32_t n = res->done;
    MPI_Send(&n, 1, MPI_UINT32_T, 0, 1, MPI_COMM_WORLD);
    static struct point_blob b;
    for (uint32_t p = 0; p < res->npoints; p++) {
        const struct bn_sweep_point *pt = &res->points[p];
        if (!pt->done)
            continue;
        memset(&b, 0, sizeof b);
        b.point = p;
        b.res = pt->res;
        b.res.faults = NULL;
        if (pt->res.nfaults)
            memcpy(b.faults, pt->res.faults, pt->res.nfaults * sizeof *b.faults);
        MPI_Send(&b, (int)sizeof b, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
    }
}

static void take_shares(const struct bn_cli_dist *d, struct bn_sweep_results *res)
{
    static struct point_blob b;
    for (int r = 1; r < d->size; r++) {
        uint32_t n = 0;
        MPI_Recv(&n, 1, MPI_UINT32_T, r, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (uint32_t i = 0; i < n; i++) {
            MPI_Recv(&b, (int)sizeof b, MPI_BYTE, r, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (b.point >= res->npoints || res->points[b.point].done ||
                b.res.nfaults > BN_SC_FAULTS_MAX) {
                fprintf(stderr, "bnet: rank %d sent point %u, which is not its to send\n", r,
                        b.point);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            struct bn_sweep_point *pt = &res->points[b.point];
            pt->res = b.res;
            if (b.res.nfaults) {
                pt->res.faults = malloc(b.res.nfaults * sizeof *pt->res.faults);
                if (!pt->res.faults) {
                    fprintf(stderr, "bnet: out of memory\n");
                    MPI_Abort(MPI_COMM_WORLD, 1);
                }
                memcpy(pt->res.faults, b.faults, b.res.nfaults * sizeof *b.faults);
            }
            pt->done = true;
            res->done++;
        }
    }
}
#endif

void bn_cli_dist_gather_sweep(const struct bn_cli_dist *d, struct bn_sweep_results *res)
{
#ifdef BNET_MPI
    if (d->size > 1) {
        int mine = res->interrupted, any = 0;
        MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
        if (d->rank == 0)
            take_shares(d, res);
        else
            send_share(res);
        res->interrupted = any || (d->rank == 0 && res->done < res->npoints);
        res->ranks = (uint32_t)d->size;
    }
#endif
    (void)d;
    (void)res;
}

#ifdef BNET_MPI
/* Item i of n flat items (numbers and fixed strings, sent as they are)
 * from its rank, i % size, to rank 0. */
static void gather_items(const struct bn_cli_dist *d, void *items, size_t size, uint32_t n,
                         int tag)
{
    for (uint32_t i = 0; i < n; i++) {
        int from = (int)(i % (uint32_t)d->size);
        char *item = (char *)items + i * size;
        if (from != 0 && d->rank == from)
            MPI_Send(item, (int)size, MPI_BYTE, 0, tag, MPI_COMM_WORLD);
        else if (from != 0 && d->rank == 0)
            MPI_Recv(item, (int)size, MPI_BYTE, from, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
}
#endif

void bn_cli_dist_gather_rss(const struct bn_cli_dist *d, struct bn_results *res)
{
#ifdef BNET_MPI
    if (d->size > 1) {
        uint64_t mine = res->peak_rss_bytes, *all = d->rank == 0 ? calloc((size_t)d->size, 8) : NULL;
        MPI_Gather(&mine, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
        if (d->rank != 0 || !all) {
            free(all);
            return;
        }
        res->rss_ranks = (uint32_t)d->size;
        res->peak_rss_rank_max = 0;
        res->peak_rss_rank_min = UINT64_MAX;
        for (int r = 0; r < d->size; r++) {
            if (r < BN_RSS_RANKS)
                res->peak_rss_rank[r] = all[r];
            res->peak_rss_rank_max = all[r] > res->peak_rss_rank_max ? all[r] : res->peak_rss_rank_max;
            res->peak_rss_rank_min = all[r] < res->peak_rss_rank_min ? all[r] : res->peak_rss_rank_min;
        }
        free(all);
    }
#endif
    (void)d;
    (void)res;
}

void bn_cli_dist_gather_coll(const struct bn_cli_dist *d, struct bn_coll_results *res)
{
#ifdef BNET_MPI
    if (d->size > 1) {
        int mine = res->interrupted, any = 0;
        MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
        gather_items(d, res->rows, sizeof *res->rows, res->nrows, 3);
        res->interrupted = any;
    }
#endif
    (void)d;
    (void)res;
}

void bn_cli_dist_gather_compare(const struct bn_cli_dist *d, struct bn_compare_results *res)
{
#ifdef BNET_MPI
    if (d->size > 1) {
        gather_items(d, res->cols, sizeof *res->cols, res->ncols, 4);
        for (uint32_t i = 0; i < res->ncols; i++) /* each column says whether it was cut */
            res->interrupted = res->interrupted || res->cols[i].interrupted;
    }
#endif
    (void)d;
    (void)res;
}

/* A wait at an exchange that outlasts sim.window_timeout_s ends this rank
 * with a message, and mpirun then ends the job: a rank that stopped or
 * hangs would leave the others in MPI for ever. The watchdog is a thread
 * that never calls MPI (the main one is inside it); an exchange marks its
 * start and end. */
static _Atomic int64_t wait_since; /* CLOCK_MONOTONIC ns; 0: not waiting */
static double wait_limit_s;
static bool watching;

static int64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec + 1;
}

static void *watchdog(void *ud)
{
    (void)ud;
    for (;;) {
        struct timespec nap = {0, 100000000};
        nanosleep(&nap, NULL);
        int64_t t = atomic_load(&wait_since);
        if (t && (double)(now_ns() - t) / 1e9 > wait_limit_s) {
            char msg[256];
            int n = snprintf(msg, sizeof msg, "bnet: rank %d: no word from the other ranks for "
                             "%g s at an exchange (sim.window_timeout_s): a rank has stopped, "
                             "hangs or died; ending the job\n", self.rank, wait_limit_s);
            if (write(STDERR_FILENO, msg, (size_t)n) < 0)
                _exit(1);
            _exit(1);
        }
    }
    return NULL;
}

void bn_cli_dist_watch(double timeout_s)
{
    if (self.size < 2 || timeout_s <= 0 || watching)
        return;
    wait_limit_s = timeout_s;
    pthread_t th;
    if (pthread_create(&th, NULL, watchdog, NULL) == 0) {
        pthread_detach(th);
        watching = true;
    }
}

#ifdef BNET_MPI
static void wait_begins(void)
{
    if (watching)
        atomic_store(&wait_since, now_ns());
}

static void wait_ends(void)
{
    if (watching)
        atomic_store(&wait_since, 0);
}
#endif

/* One partitioned run's parts on the ranks (docs/parallel.md): the
 * windows' exchange as MPI collectives on the world communicator. */
#ifdef BNET_MPI
static int counts_of(const size_t *len, int n, int *count, int *displ)
{
    size_t off = 0;
    for (int r = 0; r < n; r++) {
        if (len[r] > INT_MAX || off > INT_MAX)
            return -1; /* MPI counts are ints: past 2 GiB an exchange fails */
        count[r] = (int)len[r];
        displ[r] = (int)off;
        off += len[r];
    }
    return off > INT_MAX ? -1 : 0;
}

static int mpi_alltoall(void *ud, const void *send, void *recv, size_t blk)
{
    (void)ud;
    if (blk > INT_MAX)
        return -1;
    wait_begins();
    int rc = MPI_Alltoall(send, (int)blk, MPI_BYTE, recv, (int)blk, MPI_BYTE, MPI_COMM_WORLD);
    wait_ends();
    return rc != MPI_SUCCESS;
}

static int mpi_alltoallv(void *ud, const void *send, const size_t *send_len, void *recv,
                         const size_t *recv_len)
{
    (void)ud;
    static int *c; /* send counts, displacements, receive counts, displacements */
    int n = self.size;
    if (!c && !(c = malloc(4 * (size_t)n * sizeof *c)))
        return -1;
    if (counts_of(send_len, n, c, c + n) != 0 || counts_of(recv_len, n, c + 2 * n, c + 3 * n) != 0)
        return -1;
    wait_begins();
    int rc = MPI_Alltoallv(send, c, c + n, MPI_BYTE, recv, c + 2 * n, c + 3 * n, MPI_BYTE,
                           MPI_COMM_WORLD);
    wait_ends();
    return rc != MPI_SUCCESS;
}

static void mpi_abort(void *ud, int status, const char *why)
{
    (void)ud;
    fprintf(stderr, "bnet: rank %d: %s\n", self.rank, why);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, status);
}
#endif

const struct bn_ranks *bn_cli_dist_ranks(void)
{
#ifdef BNET_MPI
    static struct bn_ranks r;
    r = (struct bn_ranks){.rank = self.rank, .size = self.size, .local = self.local,
                          .alltoall = mpi_alltoall,
                          .alltoallv = mpi_alltoallv, .abort = mpi_abort};
    return self.size > 1 ? &r : NULL;
#else
    return NULL;
#endif
}
