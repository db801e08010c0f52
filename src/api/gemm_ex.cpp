// Placeholder until the aegisGemmEx / aegisHgemm entry points land (being written now).
#include "aegis/aegis.h"
