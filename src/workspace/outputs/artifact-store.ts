/** One stored version of an artifact. */
export interface ArtifactVersion {
  name: string;
  version: number;
  mimeType: string;
  sizeBytes: number;
  createdAt: string;
}

/** One stored version of an artifact with its bytes. */
export interface StoredArtifact extends ArtifactVersion {
  data: Buffer;
}

/** Where `artifact://` names point: a scope (the session id in the tools) holds named artifacts. */
export interface ArtifactAddress {
  scope: string;
  name: string;
}

/**
 * Keeps files beyond a workspace's life. Every save of a name creates the next version (1, 2, 3, ...);
 * a version, once saved, never changes.
 */
export interface ArtifactStore {
  save(address: ArtifactAddress, data: Uint8Array, mimeType: string): Promise<ArtifactVersion>;
  /** The given version, or the newest when `version` is undefined. Throws ArtifactNotFoundError. */
  load(address: ArtifactAddress, version?: number): Promise<StoredArtifact>;
  /** Saved versions of a name, oldest first; empty when there are none. */
  versions(address: ArtifactAddress): Promise<ArtifactVersion[]>;
}

/** `artifact://<name>@<version>`: the reference a tool result carries for a saved file. */
export function artifactReference(name: string, version: number): string {
  return `artifact://${name}@${version}`;
}

/** Splits `artifact://name[@version]`; a trailing `@digits` is the version, any other `@` is part of the name. */
export function parseArtifactReference(reference: string): { name: string; version?: number } | undefined {
  if (!reference.startsWith('artifact://')) return undefined;
  const rest = reference.slice('artifact://'.length);
  const match = /^(.*)@(\d+)$/.exec(rest);
  if (match) return { name: match[1] as string, version: Number(match[2]) };
  return { name: rest };
}
