import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// A list of reusable cells: row `r` is shown by cell `r % cells.count`.
final class ReusableCellList {
    let cells: [RecordingTarget]
    let urls: [URL]
    let manager: ImageManager
    /// Per cell: the row it was last bound to, and how many images it had been given by then.
    private(set) var lastRow: [Int]
    private(set) var setsBeforeLastBind: [Int]

    init(cellCount: Int, urls: [URL], manager: ImageManager) {
        cells = (0..<cellCount).map { _ in RecordingTarget() }
        self.urls = urls
        self.manager = manager
        lastRow = [Int](repeating: -1, count: cellCount)
        setsBeforeLastBind = [Int](repeating: 0, count: cellCount)
    }

    /// Row `row` scrolls into view: its cell is rebound to the row's URL.
    func show(_ row: Int) {
        let cell = row % cells.count
        lastRow[cell] = row
        cells[cell].setImage(with: urls[row], manager: manager)
        setsBeforeLastBind[cell] = cells[cell].sets.count
    }

    /// True when every cell shows the image of the last row it was bound to.
    func showsLastRows(width: (Int) -> Int) -> Bool {
        cells.indices.allSatisfy { cells[$0].image?.width == width(lastRow[$0]) }
    }
}

/// A list of 20 reusable cells scrolled fast over 200 images on a slow origin — the view binding's
/// reason to exist: every cell ends on its last row's image and never shows another row's.
@Suite("ImageTarget binding: reusable cells")
struct ImageTargetScrollTests {
    static let rows = 200

    /// Row `i` is a PNG `10 + i` pixels wide, so an image names its row.
    static func width(ofRow row: Int) -> Int { 10 + row }

    @Test func fastScrollingShowsOnlyEachCellsLatestImage() async throws {
        try await withManager { h in
            let urls = (0..<Self.rows).map { row -> URL in
                let path = "/row\(row).png"
                let delay = Duration.milliseconds(20 + (row * 37) % 80)
                h.origin.setRoute(path, .data(ManagerFixtures.png(Self.width(ofRow: row), 2), delay: delay))
                return h.origin.url(path)
            }
            let rowOfURL = Dictionary(uniqueKeysWithValues: urls.enumerated().map { ($1, $0) })
            let list = ReusableCellList(cellCount: 20, urls: urls, manager: h.manager)
            // Down the whole list, a few rows per millisecond or two: each cell is rebound ten times.
            for row in 0..<Self.rows {
                list.show(row)
                if row % 4 == 3 { try? await Task.sleep(for: .milliseconds(2)) }
            }
            // Let the bottom rows arrive, then flick back up over rows that are partly cached.
            #expect(await waitUntil { list.showsLastRows(width: Self.width(ofRow:)) })
            for row in stride(from: Self.rows - 1, through: Self.rows - 30, by: -1) { list.show(row) }

            #expect(await waitUntil { !h.manager.isRunning })
            #expect(await waitUntil { list.showsLastRows(width: Self.width(ofRow:)) })
            for (index, cell) in list.cells.enumerated() {
                let expected = Self.width(ofRow: list.lastRow[index])
                #expect(cell.image?.width == expected, "cell \(index) shows the wrong row")
                // Never a stale image: every image given was the image of the row bound at that moment.
                for set in cell.sets {
                    guard let image = set.image, let url = set.boundURL, let row = rowOfURL[url] else { continue }
                    #expect(image.width == Self.width(ofRow: row), "cell \(index) showed a stale row")
                }
                // After the cell's last bind, only that row's image (or the nil placeholder) arrived.
                for set in cell.sets.dropFirst(list.setsBeforeLastBind[index]) {
                    #expect(set.image == nil || set.image?.width == expected)
                }
            }
            // Abandoned rows were cancelled: queued ones never reached the origin, running ones were
            // cut before their response went out. So the responses the origin finished sending are
            // the rows that landed in a cell, plus the few rows abandoned after their response had
            // left (while it was decoded or delivered). On a quiet machine that is none (about 100
            // requests, 30 finished, 30 landed); under load a few per download slot. Without
            // cancellation every request would finish (about 70 more than landed).
            let stats = h.origin.stats
            let landedRows = Set(list.cells.flatMap { cell in cell.sets.compactMap { $0.image?.width } })
            let finishedResponses = stats.requests.count - stats.abortedResponses
            let slots = DownloaderConfig.default.maxConcurrentDownloads
            #expect(stats.requests.count < Self.rows)
            #expect(finishedResponses <= landedRows.count + 2 * slots,
                    "\(finishedResponses) responses finished, \(landedRows.count) rows landed")
            #expect(h.manager.runningCount == 0)
        }
    }
}
