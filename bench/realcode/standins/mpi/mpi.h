// Stand-in for MPI's header (r17-gpt2-djkim's data-parallel path): the
// declarations its code calls, so that its TUs parse without an MPI install.
#pragma once
typedef int MPI_Comm;
typedef int MPI_Datatype;
typedef int MPI_Op;
#define MPI_COMM_WORLD 0
#define MPI_FLOAT 1
#define MPI_SUM 2
int MPI_Init(int *, char ***);
int MPI_Finalize();
int MPI_Comm_size(MPI_Comm, int *);
int MPI_Comm_rank(MPI_Comm, int *);
int MPI_Allreduce(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm);
