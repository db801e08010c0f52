// AEGIS_HOST_DEVICE marks a function that host and device code both call; plain C++ where nvcc
// does not compile the file (the CPU tests).
#pragma once

#if defined(__CUDACC__)
#define AEGIS_HOST_DEVICE __host__ __device__
#else
#define AEGIS_HOST_DEVICE
#endif
