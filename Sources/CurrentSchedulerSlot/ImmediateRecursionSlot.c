#include "ImmediateRecursionSlot.h"

// Null on every new thread: no immediate recursion loop is running there.
_Thread_local void *_Nullable schedulers_immediate_recursion_slot = 0;
