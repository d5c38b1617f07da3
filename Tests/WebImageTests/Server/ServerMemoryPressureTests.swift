import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer

/// The server under memory pressure, driven by a scripted source over real HTTP: a signal shrinks
/// the result cache, worker slots are held back until the pressure eases (a request waits in its
/// place, or gets 504 when its own time limit passes first), and `/health` says so.
@Suite("Server: memory pressure")
struct ServerMemoryPressureTests {
    private func health(_ server: ServerHarness) async throws -> [String: Any] {
        let reply = try await server.get("/health")
        #expect(reply.status == 200)
        let object = try #require(try JSONSerialization.jsonObject(with: reply.body) as? [String: Any])
        return try #require(object["memory"] as? [String: Any])
    }

    private func withPressuredServer(requestTimeout: Double? = nil,
                                     _ body: @Sendable (ServerHarness, ScriptedPressureSource, String) async throws -> Void)
        async throws {
        let photo = Array(try JPEGFixtures.encode(TestBitmaps.gradient(width: 320, height: 240)))
        let source = ScriptedPressureSource()
        let monitor = MemoryPressureMonitor(source: source)
        try await withTestOrigin { origin in
            origin.setRoute("/photo.jpg", .data(photo, contentType: "image/jpeg"))
            let configuration = loopbackServerConfiguration {
                $0.memoryPressure = monitor
                $0.workers = 1
                if let requestTimeout { $0.requestTimeout = requestTimeout }
            }
            try await withImageServer(configuration) { server in
                #expect(source.isRunning)
                try await body(server, source, "/plain/http://127.0.0.1:\(origin.port)/photo.jpg")
            }
        }
        #expect(!source.isRunning, "the server's shutdown stops following the monitor")
    }

    @Test func aSignalShrinksTheResultCacheAndHoldsBackWorkUntilItEases() async throws {
        try await withPressuredServer { server, source, photo in
            let calm = try await health(server)
            let calmPressure = try #require(calm["pressure"] as? [String: Any])
            #expect(calmPressure["enabled"] as? Bool == true)
            #expect(calmPressure["level"] as? String == "none")
            #expect(calmPressure["watching"] as? String == "scripted")
            #expect(calm["admission_paused"] as? Bool == false)
            #expect((calm["rss_bytes"] as? Int ?? 0) > 0)
            if let limit = ProcessMemoryLimit().cgroupLimit {
                #expect(calm["limit_bytes"] as? Int == Int(limit))
                #expect((calm["rss_fraction_of_limit"] as? Double ?? 0) > 0)
            } else {
                #expect(calm["limit_bytes"] is NSNull, "no memory.max: the limit is null")
            }

            for width in [100, 120, 140, 160] {
                #expect(try await server.get("/insecure/rs:fit:\(width):\(width)\(photo)").status == 200)
            }
            let full = server.server.pipeline.resultCacheBytes
            #expect(full > 0)
            source.send(.stall(.some))
            #expect(server.server.pipeline.resultCacheBytes <= full / 2, "a some stall halves the result cache")

            let pressed = try await health(server)
            let pressure = try #require(pressed["pressure"] as? [String: Any])
            #expect(pressure["level"] as? String == "some")
            #expect(pressure["signals"] as? Int == 1)
            #expect(pressure["shrinks"] as? Int == 1)
            #expect(pressed["admission_paused"] as? Bool == true)

            // A new result waits for a worker slot while the pressure lasts.
            let waiting = Watched(0)
            server.server.pipeline.limiter.slotWaits.set { count in waiting.update { $0 = max($0, count) } }
            let request = Task { try await server.get("/insecure/rs:fit:200:200\(photo)") }
            await waiting.wait("the request to wait for a worker slot") { $0 >= 1 }
            #expect(server.server.pipeline.limiter.load.running == 0, "no slot is given out under pressure")
            source.send(.eased)
            #expect(try await request.value.status == 200, "the waiting request is made once pressure eases")

            let eased = try await health(server)
            #expect((eased["pressure"] as? [String: Any])?["level"] as? String == "none")
            #expect(eased["admission_paused"] as? Bool == false)
        }
    }

    @Test func aFullSignalEmptiesTheResultCache() async throws {
        try await withPressuredServer { server, source, photo in
            let reply = try await server.get("/insecure/rs:fit:100:100\(photo)")
            #expect(reply.status == 200)
            #expect(server.server.pipeline.resultCacheBytes > 0)
            source.send(.limit(.max))
            #expect(server.server.pipeline.resultCacheBytes == 0)
            let pressure = try await health(server)["pressure"] as? [String: Any]
            #expect(pressure?["level"] as? String == "full")
            source.send(.eased)
        }
    }

    @Test func aRequestWaitingUnderPressurePastItsTimeLimitGets504() async throws {
        try await withPressuredServer(requestTimeout: 0.5 * SanitizerRun.slowdown) { server, source, photo in
            source.send(.stall(.full))
            let reply = try await server.get("/insecure/rs:fit:50:50\(photo)")
            #expect(reply.status == 504)
            await server.server.pipeline.limiter.untilIdle()
            let load = server.server.pipeline.limiter.load
            #expect(load.running == 0 && load.waiting == 0, "the request gave up its place")
            source.send(.eased)
            #expect(!server.server.pipeline.limiter.isPaused)
        }
    }

    @Test func withoutAMonitorHealthSaysPressureIsNotFollowed() async throws {
        try await withImageServer(loopbackServerConfiguration()) { server in
            let memory = try await health(server)
            #expect((memory["pressure"] as? [String: Any])?["enabled"] as? Bool == false)
            #expect(memory["admission_paused"] as? Bool == false)
        }
    }
}
