#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The state of one asynchronous drive (`TestScheduler.Clock.advance(by:isolation:)` and its
/// siblings) while it runs the scheduler's actions synchronously on its thread.
///
/// A captured main-actor job may only run on a thread that holds the main actor. When the
/// asynchronous drive runs elsewhere, the job's action does not run it: it leaves it here, and
/// the drive, right after that action returns and before the next one, hops to the main actor
/// and runs it there. So the job still runs at its virtual time, in its place among actions.
final class AsyncDrive {
    private var deferred: [(job: UnownedJob, standIn: MainActorStandIn)] = []

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key, nil)
        precondition(status == 0, "TestScheduler.Clock.advance: pthread_key_create failed with \(status)")
        return key
    }()

    /// The drive running actions on this thread, if any (unretained: set only inside ``run(_:)``).
    static var current: AsyncDrive? {
        guard let pointer = pthread_getspecific(key) else { return nil }
        return Unmanaged<AsyncDrive>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// Runs `body` (synchronous stepping) with this drive as ``current`` on this thread.
    func run<R>(_ body: () -> R) -> R {
        let previous = pthread_getspecific(Self.key)
        pthread_setspecific(Self.key, Unmanaged.passUnretained(self).toOpaque())
        defer { pthread_setspecific(Self.key, previous) }
        return withExtendedLifetime(self) { body() }
    }

    func deferMainActorJob(_ job: UnownedJob, standIn: MainActorStandIn) {
        deferred.append((job, standIn))
    }

    /// The jobs left since the last call, in the order their actions ran.
    func takeDeferred() -> [DeferredMainActorJob] {
        defer { deferred.removeAll() }
        return deferred.map { DeferredMainActorJob(job: $0.job, standIn: $0.standIn) }
    }
}

/// A main-actor job an asynchronous drive runs once it holds the main actor.
struct DeferredMainActorJob: Sendable {
    let job: UnownedJob
    let standIn: MainActorStandIn
}
