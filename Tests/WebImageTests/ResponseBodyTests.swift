import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// The response body's memory follows the bytes that arrive, not the length the server declares.
@Suite("Response body: reservation bounded by what arrived")
struct ResponseBodyTests {
    private static let mebibyte = 1024 * 1024

    /// `count` bytes of a pattern whose period (65,521, a prime) is no power of two, so a byte
    /// copied to the wrong offset shows; built by whole-block copies to stay fast in debug builds.
    private static func bytes(_ count: Int, seed: UInt8 = 0) -> [UInt8] {
        let block = (0..<65_521).map { UInt8(truncatingIfNeeded: $0 &* 31) &+ seed }
        var out: [UInt8] = []
        out.reserveCapacity(count)
        while out.count < count { out += block.prefix(count - out.count) }
        return out
    }

    private static func append(_ bytes: [UInt8], to body: inout ResponseBody, chunk: Int = 64 * 1024) {
        var offset = 0
        while offset < bytes.count {
            let end = min(offset + chunk, bytes.count)
            bytes[offset..<end].withUnsafeBytes { body.append($0) }
            offset = end
        }
    }

    @Test func aLargeDeclaredLengthReservesOnlyTheUpFrontLimit() {
        let body = ResponseBody(declaredLength: 150_000_000, limit: 200_000_000)
        #expect(body.reservedBytes <= 8 * Self.mebibyte)
        #expect(body.reservedBytes >= BitmapMemory.threshold)
        #expect(body.count == 0)
        #expect(body.snapshot().isEmpty)
    }

    @Test func aLengthJustUnderTheLimitThatStallsKeepsTheReservationSmall() {
        let limit = 200_000_000
        var body = ResponseBody(declaredLength: Int64(limit - 1), limit: limit)
        let received = Self.bytes(1_000_000)
        Self.append(received, to: &body)
        #expect(body.count == received.count)
        #expect(body.reservedBytes <= 8 * Self.mebibyte)
        #expect([UInt8](body.snapshot()) == received)
    }

    @Test func anHonestLargeBodyGrowsGeometricallyAndKeepsEveryByte() {
        let size = 20 * Self.mebibyte + 12_345
        var body = ResponseBody(declaredLength: Int64(size), limit: 200_000_000)
        #expect(body.reservedBytes == 8 * Self.mebibyte)
        let payload = Self.bytes(size, seed: 9)
        var reservations: Set<Int> = [body.reservedBytes]
        var offset = 0
        while offset < size {
            let end = min(offset + 1_000_003, size)
            payload[offset..<end].withUnsafeBytes { body.append($0) }
            offset = end
            reservations.insert(body.reservedBytes)
            // Never more than twice what arrived (or the first reservation), never past the declared size.
            #expect(body.reservedBytes <= max(8 * Self.mebibyte, 2 * body.count))
            #expect(body.reservedBytes <= size)
        }
        #expect(body.reservedBytes == size)
        #expect(reservations == [8 * Self.mebibyte, 16 * Self.mebibyte, size], "\(reservations.sorted())")
        #expect(body.snapshot() == Data(payload))
    }

    @Test func aBodyLongerThanDeclaredStillFits() {
        let declared = 300 * 1024
        var body = ResponseBody(declaredLength: Int64(declared), limit: 200_000_000)
        #expect(body.reservedBytes == declared)
        let payload = Self.bytes(declared + 70_000, seed: 3)
        Self.append(payload, to: &body, chunk: 50_000)
        #expect(body.snapshot() == Data(payload))
    }

    @Test func smallAndUndeclaredBodiesAppend() {
        var unknown = ResponseBody(declaredLength: nil, limit: 200_000_000)
        #expect(unknown.reservedBytes == 64 * 1024)
        let payload = Self.bytes(500_000, seed: 5)
        Self.append(payload, to: &unknown, chunk: 8_192)
        #expect(unknown.snapshot() == Data(payload))

        var small = ResponseBody(declaredLength: 1_000, limit: 200_000_000)
        #expect(small.reservedBytes == 1_000)
        Self.append(Array(payload.prefix(1_000)), to: &small, chunk: 300)
        #expect(small.snapshot() == Data(payload.prefix(1_000)))
    }

    @Test func aNegativeOrHugeDeclarationIsClampedByTheLimit() {
        #expect(ResponseBody(declaredLength: -5, limit: 1_000_000).reservedBytes == 0)
        #expect(ResponseBody(declaredLength: .max, limit: 1_000_000).reservedBytes == 1_000_000)
    }

    private static func address(of data: Data) -> UnsafeRawPointer? {
        data.withUnsafeBytes { $0.baseAddress }
    }

    @Test func aSnapshotIsAViewThatLaterChunksLeaveAlone() {
        var body = ResponseBody(declaredLength: 400_000, limit: 200_000_000)
        let payload = Self.bytes(400_000, seed: 7)
        Self.append(Array(payload.prefix(100_000)), to: &body)
        let early = body.snapshot()
        Self.append(Array(payload[100_000..<300_000]), to: &body)
        let later = body.snapshot()
        // Both views share the one pre-sized block: appending while `early` is alive copied nothing.
        #expect(Self.address(of: early) == Self.address(of: later))
        #expect(early == Data(payload.prefix(100_000)))
        #expect(later == Data(payload.prefix(300_000)))
    }

    @Test func aRegrowthLeavesOlderSnapshotsIntact() {
        var body = ResponseBody(declaredLength: nil, limit: 200_000_000)
        let payload = Self.bytes(1_000_000, seed: 11)
        Self.append(Array(payload.prefix(50_000)), to: &body, chunk: 10_000)
        let early = body.snapshot()
        Self.append(Array(payload[50_000...]), to: &body, chunk: 10_000)
        #expect(body.reservedBytes >= 1_000_000)
        #expect(early == Data(payload.prefix(50_000)))
        #expect(body.snapshot() == Data(payload))
    }

    @Test func finishHandsOverTheBlockWhenNoSnapshotIsAlive() {
        var body = ResponseBody(declaredLength: 200_000, limit: 200_000_000)
        let payload = Self.bytes(200_000, seed: 13)
        Self.append(payload, to: &body)
        let blockAddress = Self.address(of: body.snapshot())
        let finished = body.finish()
        #expect(Self.address(of: finished) == blockAddress)
        #expect(finished == Data(payload))
    }

    @Test func finishCopiesWhileAPartialDecodeStillHoldsASnapshot() {
        var body = ResponseBody(declaredLength: 200_000, limit: 200_000_000)
        let payload = Self.bytes(200_000, seed: 17)
        Self.append(Array(payload.prefix(120_000)), to: &body)
        let heldByDecode = body.snapshot()
        Self.append(Array(payload[120_000...]), to: &body)
        var finished = body.finish()
        #expect(Self.address(of: finished) != Self.address(of: heldByDecode))
        #expect(finished == Data(payload))
        // The caller's bytes are its own: writing them leaves the decode's view unchanged.
        finished[0] = ~payload[0]
        #expect(heldByDecode == Data(payload.prefix(120_000)))
    }
}
