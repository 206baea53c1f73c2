// `import SchedulersTestSupport` brings the schedulers (and their disposables) along, so a test
// file needs one import for the trait, the capture and the schedulers it drives.
@_exported import Schedulers
