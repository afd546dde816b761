import ArgumentParser
import DatacenterBrowser
import DatacenterDAO
import DatacenterDemo
import DatacenterKit
import Foundation

/// `datacenter browse`: the terminal browser.
struct BrowseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "browse",
        abstract: "Browse a data-center root or any SQLite file in the terminal.",
        discussion: ExitStatusHelp.discussion("""
            With no PATH, opens the demo (building it first if missing) with its published key, so every \
            feature shows at once.

            What it writes, and when: files are opened read-only and browsing changes nothing. The browser \
            writes only when you commit staged edits (e, x, o stage them; w reviews them; c commits) or \
            confirm a DAO write method (y). A commit runs exactly the statements the review lists, in one \
            transaction per store, through a connection that creates no table and keeps the journal mode; \
            a store whose transaction fails is left unchanged. Values of encrypted columns and KV entries are \
            written encrypted with the newest --key. Quitting with staged edits asks first (commit, discard, \
            stay). --read-only refuses staging and DAO writes at the key.
            """))

    @OptionGroup var global: GlobalOptions
    @Argument(help: ArgumentHelp("A data-center root folder or a SQLite file.", valueName: "path")) var path: String?
    @Option(help: ArgumentHelp("Open straight onto this table, KV business or cache.", valueName: "name")) var table: String?
    @Option(help: ArgumentHelp("DAO configs to load: an XML file or a folder of them.", valueName: "dir-or-xml")) var config: String?
    @Option(help: ArgumentHelp("A theme: default, light, high-contrast (built in), or NAME.theme of $DATACENTER_THEMES or ./themes.", valueName: "name")) var theme: String?
    @Flag(help: "Write nothing: refuse staging edits and DAO write methods (otherwise only what you confirm is written).") var readOnly = false

    /// A `--theme` that names no theme is a usage error (exit 2), listing the themes there are.
    func validate() throws {
        guard let theme else { return }
        let (themes, errors) = BrowseCommand.loadThemes()
        do { _ = try Theme.named(theme, in: themes, errors: errors) } catch { throw ValidationError("\(error)") }
    }

    func run() throws {
        let (givenKeys, appKey) = try global.keys()
        var keys = givenKeys
        var databaseKeys = try global.databaseKeyList()
        let target: String
        if let path {
            target = expandTilde(path)
        } else {
            target = expandTilde(global.root ?? GlobalOptions.defaultFolder("demo"))
            if !FileManager.default.fileExists(atPath: target) { try DemoCommand.buildDemo(at: target) }
            keys = KeyRing(keys.keys + [DemoStore.key])
            // The demo's published passphrase, for a demo built with --encrypt-db.
            if DatabasePassphrase.encryptedFile(at: target) != nil {
                databaseKeys = DatabaseKeyList(databaseKeys.keys + DemoStore.databaseKeys.keys)
            }
        }
        var databaseSettings: DatabaseCipherSettings?
        if let encrypted = DatabasePassphrase.encryptedFile(at: target) {
            // The keys at hand (given, or the demo's published passphrase) are tried first;
            // when none opens the file the passphrase is asked for, as when none is given. With
            // no terminal to ask on, the error says which key did not open it.
            var found: DatabaseKey?
            if !databaseKeys.isEmpty {
                do {
                    found = try databaseKeys.open(path: encrypted, mode: .readOnly, busyTimeout: global.busyTimeout).key
                } catch let error as DatabaseError where error.keyProblem != nil {
                    guard isatty(0) == 1, isatty(1) == 1 else { throw CLIError(CommandLineRunner.describe(error)) }
                }
            }
            if found == nil {
                databaseKeys = try DatabasePassphrase.ask(for: encrypted, shownAs: target, settings: try global.databaseCipherSettings())
                found = try? databaseKeys.open(path: encrypted, mode: .readOnly, busyTimeout: global.busyTimeout).key
            }
            // The settings found (detected when need be) go first for every file opened, and
            // show in the header.
            if let found {
                databaseSettings = found.settings
                databaseKeys = DatabaseKeyList([found] + databaseKeys.keys.filter { $0 != found })
            }
        }
        var configFiles: [BrowserCatalog.ConfigFile] = []
        if let config {
            let loaded = BrowserCatalog.loadConfigFiles(at: expandTilde(config))
            if let first = loaded.errors.first { throw CLIError(first) }
            configFiles = loaded.files
        }
        let catalog: BrowserCatalog
        let labels = appKey.map { [$0.fingerprint: "app key"] } ?? [:]
        do {
            catalog = try BrowserCatalog(path: target, keys: keys, keyLabels: labels, databaseKeys: databaseKeys,
                                         databaseSettings: databaseSettings, allowsWrites: !readOnly, busyTimeout: global.busyTimeout,
                                         configFiles: configFiles)
        } catch {
            throw CLIError(CommandLineRunner.describe(error))
        }
        // Problems with theme files are shown in the status line when the screen starts
        // (and listed by `?`), where they are not lost behind the screen.
        let (themes, themeErrors) = BrowseCommand.loadThemes()
        guard isatty(0) == 1, isatty(1) == 1 else { throw CLIError("browse needs a terminal (stdin and stdout must be a TTY)") }

        let terminal = CursesTerminal()
        terminal.start()
        defer { terminal.stop() }
        let (width, height) = terminal.size
        let browser = Browser(catalog: catalog, width: width, height: height, themes: themes, themeName: theme,
                              themeErrors: themeErrors, stateFolder: StateFolder.url())
        defer { browser.discardMark() }                             // a mark (`m`) lives as long as the browser
        browser.recordOpened(BrowserCommand.absolutePath(target))   // among the recent files (`o`)
        if let table { browser.openNode(named: table) }       // read by the loop's runner
        try BrowseCommand.loop(browser, terminal)
    }

    /// Draws, reads events and runs background work until the browser is finished, and
    /// about once a second asks whether the file shown changed (`Browser.pollForChanges`).
    /// Commands run on the runner's threads (`BrowserCommandRunner`), never on this one: the loop only
    /// reads keys, hands events to the browser and draws, so no key waits on SQLite for work
    /// the browser made a command of.
    static func loop(_ browser: Browser, _ terminal: CursesTerminal) throws {
        let runner = BrowserCommandRunner(wake: terminal.wakeUpFunction())
        // The work asked for before the loop (the grid of --table) starts before the first
        // frame is drawn: the page is read while the screen is written.
        for command in browser.takeCommands() { runner.run(command) }
        terminal.draw(browser.render(), theme: browser.theme)
        var lastPoll = Date()
        while !browser.isFinished {
            // About once a second: has an app written to the file shown? (live refresh)
            if Date().timeIntervalSince(lastPoll) >= 1 {
                browser.pollForChanges()
                lastPoll = Date()
            }
            for command in browser.takeCommands() { runner.run(command) }
            // Sleeps until a key, a result of the runner (it wakes the loop), a resize, or the
            // next poll: a key's work and a result are drawn the moment they are in.
            terminal.waitForInput(milliseconds: 250)
            var changed = false
            if let event = terminal.nextEvent(timeout: 0) {
                browser.handle(event)
                changed = true
                // Keys already typed (a paste arrives as thousands at once) are handled before
                // the next frame: one draw for them all, not one per character.
                var drained = 0
                while drained < 4_096, !browser.isFinished, let next = terminal.nextEvent(timeout: 0) {
                    browser.handle(next)
                    drained += 1
                }
            } else if terminal.hasHungUp {
                return
            }
            for event in runner.takeEvents() {
                browser.handle(event)
                changed = true
            }
            // The work the keys asked for starts before the frame is drawn.
            for command in browser.takeCommands() { runner.run(command) }
            if changed { terminal.draw(browser.render(), theme: browser.theme) }
            if let copied = browser.takeClipboard() { terminal.copyToClipboard(copied) }
        }
    }

    /// The themes built into the binary, then the theme files of `themesDirectories()`
    /// (a file overrides a built-in theme of the same name), with every file's problem.
    static func loadThemes() -> (themes: [Theme], errors: [ThemeError]) {
        let (directories, missing) = themesDirectories()
        let (themes, errors) = Theme.available(directories: directories)
        return (themes, missing + errors)
    }

    /// Where users' theme files are: `$DATACENTER_THEMES` when set (a folder that is not
    /// there is reported in `missing`), else `./themes` when there is one. The shipped themes
    /// need neither: they are built in (`BuiltInThemes`).
    static func themesDirectories() -> (directories: [String], missing: [ThemeError]) {
        if let env = ProcessEnvironment.value("DATACENTER_THEMES"), !env.isEmpty {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: env, isDirectory: &isDirectory), isDirectory.boolValue else {
                return ([], [ThemeError(file: env, line: nil, message: "$DATACENTER_THEMES names no folder")])
            }
            return ([env], [])
        }
        return ([FileManager.default.currentDirectoryPath + "/themes"], [])
    }
}
