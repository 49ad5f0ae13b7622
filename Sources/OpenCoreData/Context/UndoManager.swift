/// Foundation's undo manager, which Linux's Foundation lacks: a stack of grouped undo actions with
/// Apple's interface. Assign one to `NSManagedObjectContext.undoManager` to make a context's
/// changes undoable.
///
/// Not thread-safe, like Apple's: use it on the queue of the context it serves.
open class UndoManager: NSObject {
    private struct Action {
        let target: AnyObject
        let run: (AnyObject) -> Void
    }

    private final class Group {
        var actions: [Action] = []
        var name = ""
        let parent: Group?
        init(parent: Group?) { self.parent = parent }
    }

    private var undoStack: [Group] = []
    private var redoStack: [Group] = []
    private var openGroup: Group?
    private var disabled = 0
    /// True while a group was opened implicitly by a registration (groupsByEvent).
    private var implicitGroupOpen = false

    /// Whether an undo is in progress.
    public private(set) var isUndoing = false
    /// Whether a redo is in progress.
    public private(set) var isRedoing = false

    /// Whether registrations open a group by themselves (Apple ties this to the run loop; here the
    /// group is closed by the next `NSManagedObjectContext.processPendingChanges()`, `undo()` or
    /// `endUndoGrouping()`).
    open var groupsByEvent = true
    /// The most groups kept; 0 means no limit.
    open var levelsOfUndo = 0 {
        didSet { trim() }
    }

    /// Creates an empty undo manager.
    override public init() { super.init() }

    /// How deeply groups are nested at the moment.
    open var groupingLevel: Int {
        var level = 0
        var group = openGroup
        while let g = group {
            level += 1
            group = g.parent
        }
        return level
    }

    /// Opens a group: the actions registered until the matching `endUndoGrouping()` undo together.
    open func beginUndoGrouping() {
        openGroup = Group(parent: openGroup)
    }

    /// Closes the innermost group.
    open func endUndoGrouping() {
        guard let group = openGroup else {
            preconditionFailure("endUndoGrouping called with no open undo group.")
        }
        openGroup = group.parent
        implicitGroupOpen = false
        if let parent = group.parent {
            parent.actions += group.actions
            if parent.name.isEmpty { parent.name = group.name }
            return
        }
        guard !group.actions.isEmpty else { return }
        if isUndoing {
            redoStack.append(group)
        } else {
            undoStack.append(group)
            if !isRedoing { redoStack.removeAll() }
            trim()
        }
    }

    /// Stops recording registrations until `enableUndoRegistration()`.
    open func disableUndoRegistration() { disabled += 1 }
    /// Resumes recording registrations.
    open func enableUndoRegistration() { disabled = max(0, disabled - 1) }
    /// Whether registrations are recorded.
    open var isUndoRegistrationEnabled: Bool { disabled == 0 }

    /// Records `handler` to be run on `target` when the current group is undone.
    ///
    /// Ignored while registration is disabled. With no group open, a registration opens one by
    /// itself when `groupsByEvent` is on, and stops the program otherwise.
    ///
    /// - Parameters:
    ///   - target: The object the action applies to; the undo manager keeps a strong reference to it
    ///     until the action runs or is removed.
    ///   - handler: The undo action. It receives `target` when the group is undone; actions it
    ///     registers in turn become the redo.
    open func registerUndo<TargetType: AnyObject>(withTarget target: TargetType, handler: @escaping (TargetType) -> Void) {
        guard isUndoRegistrationEnabled else { return }
        if openGroup == nil {
            guard groupsByEvent || isUndoing || isRedoing else {
                preconditionFailure("registerUndo called with no open undo group and groupsByEvent off.")
            }
            beginUndoGrouping()
            implicitGroupOpen = true
        }
        openGroup!.actions.append(Action(target: target, run: { handler($0 as! TargetType) }))
    }

    /// Closes a group that a registration opened by itself; the context calls this when it
    /// processes pending changes, Apple's end of an event.
    func closeImplicitGroup() {
        if implicitGroupOpen, openGroup?.parent == nil { endUndoGrouping() }
    }

    /// Whether there is a group to undo.
    open var canUndo: Bool { !undoStack.isEmpty || (openGroup.map { !$0.actions.isEmpty } ?? false) }
    /// Whether there is a group to redo.
    open var canRedo: Bool { !redoStack.isEmpty }

    /// Undoes the last group (closing an open top-level group first), recording its redo.
    open func undo() {
        closeImplicitGroup()
        precondition(openGroup == nil, "undo() called with an undo group still open.")
        guard let group = undoStack.popLast() else { return }
        isUndoing = true
        replay(group)
        isUndoing = false
    }

    /// Redoes the last undone group.
    open func redo() {
        guard let group = redoStack.popLast() else { return }
        isRedoing = true
        replay(group)
        isRedoing = false
    }

    /// Undoes the actions of the innermost open group (or the last group).
    open func undoNestedGroup() { undo() }

    private func replay(_ group: Group) {
        beginUndoGrouping()
        openGroup!.name = group.name
        for action in group.actions.reversed() { action.run(action.target) }
        endUndoGrouping()
    }

    /// Forgets every recorded group.
    open func removeAllActions() {
        undoStack.removeAll()
        redoStack.removeAll()
        openGroup = nil
        implicitGroupOpen = false
    }

    /// Forgets the actions registered with `target`.
    ///
    /// - Parameter target: The object whose undo and redo actions to remove, compared by identity.
    ///   Groups left with no actions are removed too.
    open func removeAllActions(withTarget target: Any) {
        let object = target as AnyObject
        for group in undoStack + redoStack { group.actions.removeAll { $0.target === object } }
        undoStack.removeAll { $0.actions.isEmpty }
        redoStack.removeAll { $0.actions.isEmpty }
    }

    /// Names the current group, as a menu would show it ("Undo Typing").
    ///
    /// - Parameter actionName: The name to give the open group, or the last closed group when none
    ///   is open.
    open func setActionName(_ actionName: String) {
        if let openGroup { openGroup.name = actionName } else { undoStack.last?.name = actionName }
    }

    /// The name of the group `undo()` would undo.
    open var undoActionName: String { undoStack.last?.name ?? "" }
    /// The name of the group `redo()` would redo.
    open var redoActionName: String { redoStack.last?.name ?? "" }
    /// "Undo" followed by the action name.
    open var undoMenuItemTitle: String { undoActionName.isEmpty ? "Undo" : "Undo \(undoActionName)" }
    /// "Redo" followed by the action name.
    open var redoMenuItemTitle: String { redoActionName.isEmpty ? "Redo" : "Redo \(redoActionName)" }

    private func trim() {
        if levelsOfUndo > 0, undoStack.count > levelsOfUndo { undoStack.removeFirst(undoStack.count - levelsOfUndo) }
    }
}
