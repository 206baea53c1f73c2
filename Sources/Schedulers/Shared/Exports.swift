// `import Schedulers` brings the Disposables names along: every scheduling method returns one.
@_exported import Disposables
