#include "CurrentSchedulerSlot.h"

// Zero on every new thread: no captured job is running here.
_Thread_local void *_Nullable schedulers_captured_hop_slot = 0;
