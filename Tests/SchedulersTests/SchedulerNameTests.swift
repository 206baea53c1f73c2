import Foundation
import Schedulers
import Testing
import TestSupport

/// Names and descriptions: a default name says the class, `description` shows the class and
/// the name, and a queue scheduler's own queue is labelled with its name.
@Suite(.ownThread, .timeLimit(.minutes(5))) struct SchedulerNameTests {
    @Test func givenNamesAreKept() {
        #expect(TargetQueueScheduler(name: "my.scheduler", targetQueue: .global()).name == "my.scheduler")
        #expect(TargetQueueScheduler(priority: .low, name: "my.low").name == "my.low")
        #expect(QueueScheduler(name: "my.queue.scheduler", queue: .global()).name == "my.queue.scheduler")
        #expect(ImmediateScheduler(name: "my.immediate").name == "my.immediate")
    }

    @Test func defaultNamesSayTheClass() {
        #expect(TargetQueueScheduler().name.contains("TargetQueueScheduler"))
        #expect(TargetQueueScheduler(targetQueue: .global()).name.contains("TargetQueueScheduler"))
        #expect(QueueScheduler(queue: .global()).name.contains("QueueScheduler"))
        #expect(!QueueScheduler(queue: .global()).name.contains("TargetQueueScheduler"))
        #expect(ImmediateScheduler().name.contains("ImmediateScheduler"))
        #expect(Scheduler.immediate.name.contains("ImmediateScheduler"))
        #expect(Scheduler.subscription.name.contains("SubscriptionScheduler"))
    }

    @Test func descriptionContainsClassAndName() {
        let schedulers: [(Scheduler, String)] = [
            (TargetQueueScheduler(name: "described.target", targetQueue: .global()), "TargetQueueScheduler"),
            (QueueScheduler(name: "described.queue", queue: .global()), "QueueScheduler"),
            (TargetQueueScheduler(), "TargetQueueScheduler"),
            (Scheduler.immediate, "ImmediateScheduler"),
            (Scheduler.main, "TargetQueueScheduler"),
        ]
        for (scheduler, className) in schedulers {
            #expect(scheduler.description.contains(className), "\(scheduler.description)")
            #expect(scheduler.description.contains(scheduler.name), "\(scheduler.description)")
            #expect("\(scheduler)" == scheduler.description)
        }
    }

    @Test func targetQueueSchedulerQueueLabelIsTheName() {
        #expect(TargetQueueScheduler(name: "labelled", targetQueue: .global()).queue.label == "labelled")
        #expect(TargetQueueScheduler(priority: .high, name: "labelled.high").queue.label == "labelled.high")
        let anonymous = TargetQueueScheduler()
        #expect(anonymous.queue.label == anonymous.name)
        #expect(Scheduler.main.name.contains("main"))
        #expect((Scheduler.main as? QueueScheduler)?.queue.label == Scheduler.main.name)
    }

    /// A QueueScheduler over your own queue keeps that queue (and its label).
    @Test func queueSchedulerKeepsTheGivenQueue() {
        let queue = DispatchQueue(label: "mine")
        let scheduler = QueueScheduler(name: "not.the.label", queue: queue)
        #expect(scheduler.queue === queue)
        #expect(scheduler.queue.label == "mine")
    }
}
