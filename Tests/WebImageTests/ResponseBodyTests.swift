import Foundation
import Testing
@testable import WebImage

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
        #expect(body.data.isEmpty)
    }

    @Test func aLengthJustUnderTheLimitThatStallsKeepsTheReservationSmall() {
        let limit = 200_000_000
        var body = ResponseBody(declaredLength: Int64(limit - 1), limit: limit)
        let received = Self.bytes(1_000_000)
        Self.append(received, to: &body)
        #expect(body.count == received.count)
        #expect(body.reservedBytes <= 8 * Self.mebibyte)
        #expect([UInt8](body.data) == received)
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
        #expect(body.data == Data(payload))
    }

    @Test func aBodyLongerThanDeclaredStillFits() {
        let declared = 300 * 1024
        var body = ResponseBody(declaredLength: Int64(declared), limit: 200_000_000)
        #expect(body.reservedBytes == declared)
        let payload = Self.bytes(declared + 70_000, seed: 3)
        Self.append(payload, to: &body, chunk: 50_000)
        #expect(body.data == Data(payload))
    }

    @Test func smallAndUndeclaredBodiesAppend() {
        var unknown = ResponseBody(declaredLength: nil, limit: 200_000_000)
        #expect(unknown.reservedBytes == 64 * 1024)
        let payload = Self.bytes(500_000, seed: 5)
        Self.append(payload, to: &unknown, chunk: 8_192)
        #expect(unknown.data == Data(payload))

        var small = ResponseBody(declaredLength: 1_000, limit: 200_000_000)
        #expect(small.reservedBytes == 1_000)
        Self.append(Array(payload.prefix(1_000)), to: &small, chunk: 300)
        #expect(small.data == Data(payload.prefix(1_000)))
    }

    @Test func aNegativeOrHugeDeclarationIsClampedByTheLimit() {
        #expect(ResponseBody(declaredLength: -5, limit: 1_000_000).reservedBytes == 0)
        #expect(ResponseBody(declaredLength: .max, limit: 1_000_000).reservedBytes == 1_000_000)
    }
}
