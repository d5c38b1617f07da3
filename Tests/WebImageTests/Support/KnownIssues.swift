import Testing

/// Library issues these tests have found that are not fixed yet. Each wrapper covers only the
/// checks its issue breaks, so everything else in the test still counts. Once the fix lands, the
/// issue's deterministic reproduction reports its known issue as missing: delete the wrappers.
enum KnownIssue {
    /// `ImageManagerOperation.setCacheOperation` records the cache query even after the query has
    /// completed and the load has moved on to its loader request — always when the query answers
    /// synchronously (a `refreshCached` memory hit, `queryDiskDataSync`), and when an asynchronous
    /// answer beats the caller's `setCacheOperation` (about one load in twenty on a busy 2-core
    /// machine). The loader stage is replaced (by nil, or by the finished query): `loaderOperation`
    /// is nil and `cancel()` never reaches the loader, whose request runs to its end.
    /// Reproduced by ManagerCancelTests' `…RecordsAndCancelsItsRequest` tests.
    static let cacheStageReplacesLoaderStage: Comment =
        "setCacheOperation replaces the loader stage, so cancel() misses the loader request"

    /// Checks that a manager-side cancel reached the loader, or that the load recorded its loader
    /// request: they fail when ``cacheStageReplacesLoaderStage`` strikes.
    static func loaderStage(sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) {
        withKnownIssue(cacheStageReplacesLoaderStage, isIntermittent: true, sourceLocation: sourceLocation, body)
    }
}
