import Foundation
import Logging
import Synchronization
import Testing
@testable import WebImageServer

/// `--log-format json`: every entry is one JSON object on one line, whatever its text holds.
@Suite("Server: JSON log lines")
struct JSONLogHandlerTests {
    @Test func anEntryIsOneParsableLineWithItsMetadataAsFields() throws {
        let lines = Mutex<[String]>([])
        var logger = Logger(label: "test.json") { label in
            JSONLogHandler(label: label) { line in lines.withLock { $0.append(line) } }
        }
        logger[metadataKey: "instance"] = "a"
        logger.info("line one\nwith \"quotes\" and \u{1}", metadata: [
            "request_id": "r-1", "status": "200", "nested": ["k": ["x", "y"]],
        ])
        let written = lines.withLock { $0 }
        #expect(written.count == 1)
        let line = try #require(written.first)
        #expect(line.hasSuffix("}\n"))
        #expect(line.dropLast().contains("\n") == false)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["level"] as? String == "info")
        #expect(object["label"] as? String == "test.json")
        #expect(object["message"] as? String == "line one\nwith \"quotes\" and \u{1}")
        #expect(object["request_id"] as? String == "r-1")
        #expect(object["instance"] as? String == "a")
        #expect((object["nested"] as? [String: Any])?["k"] as? [String] == ["x", "y"])
        #expect((object["time"] as? String)?.hasSuffix("Z") == true)
    }

    @Test func entriesBelowTheLevelAreNotWritten() {
        let lines = Mutex<[String]>([])
        var logger = Logger(label: "test.json") { label in
            JSONLogHandler(label: label) { line in lines.withLock { $0.append(line) } }
        }
        logger.logLevel = .warning
        logger.info("quiet")
        logger.warning("loud")
        #expect(lines.withLock { $0.count } == 1)
    }
}
