import Foundation
import Testing
@testable import WebImageLoading

/// A name server the test scripts: each host answers its scripted answers in turn (the last one
/// repeats), and every question is recorded, so a test can play a rebinding server or mixed
/// answers and count how often the guard asked.
final class ScriptedResolver: HostResolving {
    private struct Script {
        var answers: [String: [[IPAddress]]] = [:]
        var questions: [String] = []
    }

    private let script = Watched(Script())

    /// `host` answers `answers[0]`, then `answers[1]`, …, then the last one forever.
    func set(_ host: String, _ answers: [String]...) {
        let parsed = answers.map { $0.map { IPAddress($0)! } }
        script.update { $0.answers[host] = parsed }
    }

    /// How many times `host` was looked up.
    func questions(_ host: String) -> Int { script.value.questions.count { $0 == host } }

    func addresses(of host: String, port: Int) async throws -> [IPAddress] {
        try script.update { script -> Result<[IPAddress], HostResolutionError> in
            script.questions.append(host)
            guard var answers = script.answers[host], !answers.isEmpty else {
                return .failure(HostResolutionError(host: host, reason: "no such name in the test's script"))
            }
            let answer = answers.count > 1 ? answers.removeFirst() : answers[0]
            script.answers[host] = answers
            return .success(answer)
        }.get()
    }
}
