// `import Schedulers` brings the Disposables names along: every scheduling method returns one.
@_exported import Disposables
// And the standard library's `Mutex` and `Atomic`, which a test of scheduled work reaches for
// first (the contract's examples use `Mutex` with no import of their own). A type of the
// importing module's own with either name still wins there: a module's declarations shadow
// imported ones.
@_exported import Synchronization
