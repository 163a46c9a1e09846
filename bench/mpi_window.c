/*
 * What one synchronous window costs across MPI ranks (docs/parallel.md):
 * the exchange a partitioned run makes per window, timed alone. Per
 * window, every rank agrees on the earliest pending event and whether all
 * are done (MPI_Allreduce, MIN, of two 64-bit values), tells every other
 * rank how many messages it holds for it (MPI_Alltoall) and sends them
 * (MPI_Alltoallv, `size` bytes each: a held frame with its event, as
 * struct bn_cut_msg). Prints microseconds per window for each count of
 * messages per rank pair.
 *
 *   mpirun -np 2 build/mpi_window [ROUNDS]
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int rounds = argc > 1 ? atoi(argv[1]) : 20000;
    const int msg_bytes = 56; /* a held frame and its event (bn_cut_msg less telemetry) */
    static const int counts[] = {0, 1, 8, 64, 512};
    int *scount = malloc(size * sizeof *scount), *rcount = malloc(size * sizeof *rcount);
    int *sdisp = malloc(size * sizeof *sdisp), *rdisp = malloc(size * sizeof *rdisp);
    char *sbuf = calloc((size_t)size * 512, msg_bytes), *rbuf = calloc((size_t)size * 512, msg_bytes);
    if (!scount || !rcount || !sdisp || !rdisp || !sbuf || !rbuf)
        MPI_Abort(MPI_COMM_WORLD, 1);
    if (rank == 0)
        printf("ranks %d, %d-byte messages\nmsgs_per_pair  us_per_window\n", size, msg_bytes);
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        for (int r = 0; r < size; r++) {
            scount[r] = r == rank ? 0 : counts[c] * msg_bytes;
            sdisp[r] = r * 512 * msg_bytes;
        }
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int i = 0; i < rounds; i++) {
            uint64_t mine[2] = {(uint64_t)i * 1000 + (uint64_t)rank, 1}, all[2];
            MPI_Allreduce(mine, all, 2, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
            MPI_Alltoall(scount, 1, MPI_INT, rcount, 1, MPI_INT, MPI_COMM_WORLD);
            int at = 0;
            for (int r = 0; r < size; r++) {
                rdisp[r] = at;
                at += rcount[r];
            }
            MPI_Alltoallv(sbuf, scount, sdisp, MPI_BYTE, rbuf, rcount, rdisp, MPI_BYTE,
                          MPI_COMM_WORLD);
        }
        double us = (MPI_Wtime() - t0) / rounds * 1e6, worst;
        MPI_Reduce(&us, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        if (rank == 0)
            printf("%13d  %13.2f\n", counts[c], worst);
    }
    free(scount);
    free(rcount);
    free(sdisp);
    free(rdisp);
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
