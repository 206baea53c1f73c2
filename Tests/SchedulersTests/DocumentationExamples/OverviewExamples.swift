import Foundation
import Schedulers
import Testing
import TestSupport

// The code blocks of the two modules' landing pages (Schedulers.docc/Schedulers.md and
// Disposables.docc/Disposables.md), as snippet regions inside tests that assert what the pages
// say (DocumentationSnippetTests checks that each block equals its region).

/// What the snippets print, recorded instead of written to standard output, so that a green run
/// is quiet and the test can assert what the page says is printed.
private let printed = Locked<[String]>([])
private func print(_ line: String) { printed.withLock { $0.append(line) } }

@Suite(.ownThread, .timeLimit(.minutes(5))) struct OverviewExamples {
    /// An action disposed before it starts never starts.
    @Test func disposingBeforeTheStart() {
        // snippet: overview-first-schedule
        let work = TargetQueueScheduler(priority: .default, name: "example.work")
        work.queue.suspend()   // so that the action cannot start before dispose()
        let disposable = work.schedule {
            // Runs on work.queue; Scheduler.current === work here.
            Scheduler.main.schedule { /* always asynchronous, on the main queue */ }
        }
        disposable?.dispose()   // if it has not started yet, it never will
        work.queue.resume()
        // snippet: end
        let drained = Locked(false)
        work.schedule { drained.withLock { $0 = true } }   // FIFO: after the disposed one's turn
        #expect(waitUntil { drained.value })
        #expect(disposable?.isDisposed == true)
    }

    /// A compound disposable disposes what it holds, once, on the disposing thread.
    @Test func compoundDisposable() {
        // snippet: overview-compound-disposable
        let subscriptions = CompoundDisposable()
        subscriptions.add(ActionDisposable { print("torn down") })
        subscriptions.dispose()   // prints "torn down", once, on this thread
        // snippet: end
        #expect(subscriptions.isDisposed)
        #expect(printed.value == ["torn down"])
    }
}
