import Foundation
@testable import WebImageServer

/// A loopback server configuration whose time is `clock` (seconds), with round freshness numbers
/// the freshness tests count in: sources fresh for 100 s unless their origin says otherwise, at
/// least 10 s and at most 1000 s.
func freshnessServerConfiguration(_ clock: Watched<Int64>,
                                  _ adjust: (inout ServerConfiguration) -> Void = { _ in }) -> ServerConfiguration {
    loopbackServerConfiguration {
        $0.now = { clock.value }
        $0.sourceTTL = 100
        $0.freshnessFloor = 10
        $0.freshnessCeiling = 1000
        adjust(&$0)
    }
}

extension ServerHarness {
    /// The outcomes of this server's revalidations from now on, in order.
    func revalidationOutcomes() -> Watched<[RevalidationOutcome]> {
        let outcomes = Watched<[RevalidationOutcome]>([])
        server.pipeline.states.observeRevalidations { _, outcome in outcomes.update { $0.append(outcome) } }
        return outcomes
    }
}
