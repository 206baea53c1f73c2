import Foundation
import Schedulers

let work = TargetQueueScheduler(priority: .default, name: "example.work")
work.schedule {
    // Runs on work.queue, with Scheduler.current === work.
    let result = (1...100).reduce(0, +)
    Scheduler.main.schedule {   // always asynchronous, on the main queue
        print("The sum is \(result).")
        exit(0)
    }
}
dispatchMain()   // drains the main queue (in an app, the run loop does)
