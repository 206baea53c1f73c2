#include "CurrentSchedulerSlot.h"

// Zero (nil) on every new thread: "not asked yet" to Scheduler.current.
_Thread_local void *_Nullable schedulers_current_slot = 0;
