extension Disposable {
    /// Adds this disposable to `compound`, to be disposed with it: RxSwift's
    /// `disposed(by: bag)`, so a subscription reads as one expression.
    ///
    /// The same as `compound.add(self)`: if `compound` is already disposed, this one is disposed
    /// at once, on the calling thread.
    ///
    /// - Parameter compound: the compound disposable that will own this one.
    public func disposed(by compound: CompoundDisposable) {
        compound.add(self)
    }

    /// Adds this disposable to `scoped`, to be disposed when it is disposed or deinitialised:
    /// RxSwift's `disposed(by: bag)` with a `DisposeBag`, so a subscription reads as one
    /// expression and lives as long as the object that keeps `scoped`.
    ///
    /// The same as `scoped.add(self)`: if `scoped` is already disposed, this one is disposed at
    /// once, on the calling thread.
    ///
    /// - Parameter scoped: the scoped compound disposable that will own this one.
    public func disposed(by scoped: ScopedCompoundDisposable) {
        scoped.add(self)
    }
}
