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

/// A list of 20 reusable cells scrolled fast over 200 images — the view binding's reason to exist:
/// every cell ends on its last row's image and never shows another row's.
@Suite("ImageTarget binding: reusable cells")
struct ImageTargetScrollTests {
    static let rows = 200

    /// Row `i` is a PNG `10 + i` pixels wide, so an image names its row.
    static func width(ofRow row: Int) -> Int { 10 + row }

    /// Serves every row, each load held at the loader until the test lets it go.
    private static func serveRows(_ h: ScriptedManagerHarness) -> [URL] {
        (0..<rows).map { row in h.serve("/row\(row).png", LoadScript.png(width(ofRow: row), 2).holding(.started)) }
    }

    /// Expects every cell to show only images of the row it was bound to at that moment, and to
    /// have received nothing but its last row's image (or the nil placeholder) since its last bind.
    private static func expectNoStaleImages(_ list: ReusableCellList, rowOfURL: [URL: Int]) {
        for (index, cell) in list.cells.enumerated() {
            let expected = width(ofRow: list.lastRow[index])
            #expect(cell.image?.width == expected, "cell \(index) shows the wrong row")
            for set in cell.sets {
                guard let image = set.image, let url = set.boundURL, let row = rowOfURL[url] else { continue }
                #expect(image.width == width(ofRow: row), "cell \(index) showed a stale row")
            }
            for set in cell.sets.dropFirst(list.setsBeforeLastBind[index]) {
                #expect(set.image == nil || set.image?.width == expected)
            }
        }
    }

    /// Loads finish while the list scrolls: every few rows, whatever has reached the loader is let
    /// go, so results race with rebinds of their cells on another thread (which ones, varies from
    /// run to run; what must hold does not).
    @Test func fastScrollingShowsOnlyEachCellsLatestImage() async throws {
        try await withScriptedManager { h in
            let urls = Self.serveRows(h)
            let rowOfURL = Dictionary(uniqueKeysWithValues: urls.enumerated().map { ($1, $0) })
            let list = ReusableCellList(cellCount: 20, urls: urls, manager: h.manager)
            // Down the whole list: each cell is rebound ten times.
            for row in 0..<Self.rows {
                list.show(row)
                if row % 4 == 3 { h.loader.releaseAll() }
            }
            // Let the bottom rows arrive, then flick back up over rows that are partly cached.
            h.loader.stopHolding()
            for (index, cell) in list.cells.enumerated() {
                await cell.waitForImage(width: Self.width(ofRow: list.lastRow[index]))
            }
            for row in stride(from: Self.rows - 1, through: Self.rows - 30, by: -1) { list.show(row) }
            for (index, cell) in list.cells.enumerated() {
                await cell.waitForImage(width: Self.width(ofRow: list.lastRow[index]))
            }
            // Each cell's current load has ended (its image landed); every other was cancelled.
            #expect(h.manager.runningCount == 0)
            await CallbackQueue.shared.drained()
            Self.expectNoStaleImages(list, rowOfURL: rowOfURL)
        }
    }

    /// Replaces the origin-side bound of the old scroll test ("responses finished ≤ rows landed +
    /// a few per slot"): with every load held until the scroll is over, the rule is exact. A row
    /// whose cell was rebound never loads: its load was cancelled at the loader, or never asked for.
    @Test func rowsScrolledPastAreCancelledBeforeTheyLoad() async throws {
        try await withScriptedManager { h in
            let urls = Self.serveRows(h)
            let rowOfURL = Dictionary(uniqueKeysWithValues: urls.enumerated().map { ($1, $0) })
            let list = ReusableCellList(cellCount: 20, urls: urls, manager: h.manager)
            for row in 0..<Self.rows { list.show(row) }
            let visible = Set(urls.suffix(20))
            // Only the visible rows' loads are left, each held at the loader (a load of an abandoned
            // row may pass through the loader on its way to being cancelled: wait for the exact set,
            // then for the cache's callbacks, which cancel such loads, to have run).
            await h.loader.log.wait("the visible rows to be held") { log in
                visible.isSubset(of: Set(log.held.map(\.url)))
            }
            h.drain()
            let abandoned = h.loader.requests.map(\.url).filter { !visible.contains($0) }
            #expect(Set(h.loader.log.value.held.map(\.url)) == visible)
            #expect(h.loader.inFlight == 20)
            #expect(abandoned.count == h.loader.cancelCount)
            for url in abandoned {
                #expect(h.loader.finals(for: url).allSatisfy { $0.error?.code == .cancelled }, "\(url.path)")
            }
            #expect(h.loader.releaseAll() == 20)
            for (index, cell) in list.cells.enumerated() {
                await cell.waitForImage(width: Self.width(ofRow: list.lastRow[index]))
            }
            #expect(h.manager.runningCount == 0)
            await CallbackQueue.shared.drained()
            // Nothing but the visible rows ever landed.
            let landed = Set(list.cells.flatMap { cell in cell.sets.compactMap { $0.image?.width } })
            #expect(landed == Set((Self.rows - 20..<Self.rows).map(Self.width(ofRow:))))
            Self.expectNoStaleImages(list, rowOfURL: rowOfURL)
        }
    }
}
