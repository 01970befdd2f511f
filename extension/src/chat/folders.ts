// Which folder of a (multi-root) workspace a session works in, and which of the others come along
// as additional directories. No vscode import: the folders are described by their name and where
// they are, so the choice is tested without VS Code.

/** A workspace folder as the choice sees it. */
export interface FolderInfo {
  name: string;
  /** The URI's scheme and authority: folders reached through the same connection share it. */
  scheme: string;
  authority: string;
}

export interface FolderChoice<F extends FolderInfo> {
  /** The session's folder: its cwd (or mirror), its settings and its checkpoints. */
  primary: F;
  /** The other folders on the same machine: additional directories. */
  others: F[];
  /** Folders left out, and why. */
  leftOut: string[];
}

/** The session's folder: the one named `wanted` (`tether.folder`, or the session's own), else the
 * first; the others on the same machine come along. Undefined without folders. */
export function chooseFolders<F extends FolderInfo>(folders: readonly F[], wanted?: string): FolderChoice<F> | undefined {
  if (!folders.length) return undefined;
  const named = wanted ? folders.find((f) => f.name === wanted) : undefined;
  const primary = named ?? folders[0]!;
  const leftOut: string[] = [];
  if (wanted && !named) leftOut.push(`there is no workspace folder named ${wanted}; the session uses ${primary.name}`);
  const others: F[] = [];
  for (const folder of folders) {
    if (folder === primary) continue;
    if (folder.scheme === primary.scheme && folder.authority === primary.authority) others.push(folder);
    else leftOut.push(`${folder.name} is on another machine than ${primary.name}, so the session cannot reach it`);
  }
  return { primary, others, leftOut };
}

/** Whether the user should pick the session's folder (several folders, none chosen yet). */
export function needsFolderPick(folders: readonly FolderInfo[], chosen?: string): boolean {
  return folders.length > 1 && !(chosen && folders.some((f) => f.name === chosen));
}
