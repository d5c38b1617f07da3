import Foundation
import Testing
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
    /// The key this server keeps `path`'s result under, made from the version of `source` it knows.
    func resultKey(_ path: String, source: String) throws -> String {
        let parsed = try server.pipeline.parser.parse(path)
        let identity = try #require(server.pipeline.states.known(source)).identity
        return parsed.canonicalKey + "|" + (parsed.options.format?.rawValue ?? "source") + "|"
            + server.pipeline.recipe + "|" + identity
    }

    /// The outcomes of this server's revalidations from now on, in order.
    func revalidationOutcomes() -> Watched<[RevalidationOutcome]> {
        let outcomes = Watched<[RevalidationOutcome]>([])
        server.pipeline.states.observeRevalidations { _, outcome in outcomes.update { $0.append(outcome) } }
        return outcomes
    }
}
