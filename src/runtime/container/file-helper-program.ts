/**
 * The program `ContainerWorkspaceFiles` runs in a workspace's container (as the container's user,
 * `python3 -c`) for every file operation that needs to look at the workspace: the engine's archive
 * calls follow links inside the container's root and cannot say what is a link, so the judging of
 * paths (lstat, realpath, O_NOFOLLOW opens) happens here, where the files are, and the daemon is
 * only used to carry bytes in. It runs only between commands (the workspace takes turns and every
 * process a command left is killed when it ends), so nothing swaps a path while it looks.
 *
 * Called as `python3 -c PROGRAM <questions>`, the questions a Python literal list of
 * `[operation, arguments]` (several file calls made at once travel in one exec); it prints a JSON
 * list with one answer each: `{"ok": value}`, `{"refused": why}` (a path that leads out:
 * WorkspacePathError on the host) or `{"error": why}`.
 */
export const fileHelperProgram = String.raw`
import ast, base64, os, stat, sys

ROOT = '/skillbox/workspace'
STAGING = '/skillbox/staging'

class Refused(Exception):
    pass

def full(rel):
    return ROOT if rel == '' else ROOT + '/' + rel

def inside(real):
    return real == ROOT or real.startswith(ROOT + '/')

def relative(real):
    return '' if real == ROOT else real[len(ROOT) + 1:]

def kind_of(st):
    if stat.S_ISREG(st.st_mode): return 'file'
    if stat.S_ISDIR(st.st_mode): return 'directory'
    if stat.S_ISLNK(st.st_mode): return 'link'
    return 'other'

def info(st):
    return {'kind': kind_of(st), 'mode': stat.S_IMODE(st.st_mode), 'inode': st.st_ino, 'sizeBytes': st.st_size,
            'mtimeMs': st.st_mtime_ns / 1e6, 'ctimeMs': st.st_ctime_ns / 1e6}

def parent_inside(rel):
    """The real path of rel's parent, refused when a link there leads out."""
    parent = os.path.dirname(full(rel)) if rel != '' else os.path.dirname(ROOT)
    real = os.path.realpath(parent)
    if not inside(real) or not os.path.isdir(real):
        raise Refused('a parent of "%s" leads out of the workspace or is not a folder' % rel)
    return real

def inspect(rel):
    try:
        parent = parent_inside(rel) if rel != '' else None
        return info(os.lstat(full(rel) if parent is None else parent + '/' + os.path.basename(rel)))
    except (Refused, OSError):
        return None

def resolve(paths):
    out = []
    for rel in paths:
        path = full(rel)
        if not os.path.lexists(path):
            out.append(None); continue
        real = os.path.realpath(path)
        if not inside(real) or not os.path.lexists(real):
            out.append({'inside': False}); continue
        out.append({'inside': True, 'path': relative(real), 'entry': info(os.lstat(real))})
    return out

def resolved_folder(rel):
    [found] = resolve([rel])
    if found is None: raise Refused('"%s" does not exist' % rel)
    if not found['inside']: raise Refused('"%s" leads out of the workspace' % rel)
    return full(found['path'])

def listing(folder, max_depth, max_entries):
    start = resolved_folder(folder)
    entries = []
    state = {'truncated': False}
    def walk(directory, rel_dir, depth):
        if max_depth is not None and depth > max_depth: return
        try: names = sorted(os.listdir(directory))
        except OSError: return
        for name in names:
            if state['truncated']: return
            if len(entries) >= max_entries:
                state['truncated'] = True; return
            rel = name if rel_dir == '' else rel_dir + '/' + name
            kind = kind_of(os.lstat(directory + '/' + name))
            entries.append({'path': rel, 'kind': kind})
            if kind == 'directory': walk(directory + '/' + name, rel, depth + 1)
    walk(start, '', 1)
    return {'entries': entries, 'truncated': state['truncated']}

def read(rel, max_bytes):
    path = parent_inside(rel) + '/' + os.path.basename(rel)
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode): raise OSError('"%s" is not a regular file' % rel)
        chunks, left = [], max_bytes
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk: break
            chunks.append(chunk); left -= len(chunk)
        return {'data': base64.b64encode(b''.join(chunks)).decode(), 'sizeBytes': st.st_size}
    finally:
        os.close(fd)

def make_folder(rel, exclusive):
    current = ROOT
    parts = rel.split('/')
    for index, name in enumerate(parts):
        path = current + '/' + name
        last = index == len(parts) - 1
        if os.path.lexists(path):
            if last and exclusive: return False
            real = os.path.realpath(path)
            if not inside(real) or not os.path.isdir(real):
                raise Refused('"%s" is not a folder inside the workspace' % '/'.join(parts[:index + 1]))
            current = real
        else:
            os.mkdir(path, 0o755)
            current = path
    return True

def set_aside(path):
    """Moves what is at path out of the workspace (into the staging area), then removes it there."""
    aside = STAGING + '/aside-%d-%s' % (os.getpid(), os.urandom(6).hex())
    os.rename(path, aside)
    remove_tree(aside)

def remove_tree(path):
    st = os.lstat(path)
    if not stat.S_ISDIR(st.st_mode):
        os.unlink(path); return
    # A command may have taken its own permissions away from a folder: give them back to remove it.
    os.chmod(path, 0o700)
    for name in os.listdir(path): remove_tree(path + '/' + name)
    os.rmdir(path)

def ensure_folders(paths):
    for rel in paths:
        parent = parent_inside(rel)
        path = parent + '/' + os.path.basename(rel)
        if os.path.lexists(path):
            st = os.lstat(path)
            if stat.S_ISDIR(st.st_mode): continue
            set_aside(path)
        os.mkdir(path, 0o755)
    return None

def place(stage, rel, keep_folder):
    """Moves the staged tree stage/t to rel, replacing what is there (a link itself)."""
    if rel == '': raise Refused('the workspace root cannot be replaced')
    parts = rel.split('/')
    if len(parts) > 1: make_folder('/'.join(parts[:-1]), False)
    parent = parent_inside(rel)
    path = parent + '/' + parts[-1]
    built = STAGING + '/' + stage + '/t'
    if os.path.lexists(path):
        if keep_folder and stat.S_ISDIR(os.lstat(path).st_mode):
            raise OSError('a folder stands at "%s"' % rel)
        old = STAGING + '/' + stage + '/old'
        os.rename(path, old)
        try:
            os.rename(built, path)
        except OSError:
            os.rename(old, path); raise
        remove_tree(old)
    else:
        os.rename(built, path)
    inode = os.lstat(path).st_ino
    remove_tree(STAGING + '/' + stage)
    return inode

def stage():
    name = 'put-%d-%s' % (os.getpid(), os.urandom(8).hex())
    os.mkdir(STAGING + '/' + name, 0o700)
    return name

def copy(source, rel_to):
    [found] = resolve([source])
    if found is None: raise OSError('"%s" does not exist' % source)
    if not found['inside']: raise Refused('"%s" leads out of the workspace' % source)
    top = full(found['path'])
    name = stage()
    built = STAGING + '/' + name + '/t'
    def walk(src, dst):
        st = os.lstat(src)
        if stat.S_ISDIR(st.st_mode):
            os.mkdir(dst, 0o700)
            for entry in sorted(os.listdir(src)): walk(src + '/' + entry, dst + '/' + entry)
            os.chmod(dst, stat.S_IMODE(st.st_mode) | 0o700)
        elif stat.S_ISLNK(st.st_mode):
            target = os.readlink(src)
            real = os.path.normpath(os.path.join(os.path.dirname(src), target))
            if real == top or real.startswith(top + '/'): os.symlink(target, dst)
        elif stat.S_ISREG(st.st_mode):
            copy_file(src, dst)
            os.chmod(dst, stat.S_IMODE(st.st_mode) | 0o600)
    walk(top, built)
    place(name, rel_to, False)
    return None

def copy_file(src, dst):
    fd = os.open(src, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    try:
        out = os.open(dst, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            while True:
                chunk = os.read(fd, 1 << 20)
                if not chunk: break
                while chunk: chunk = chunk[os.write(out, chunk):]
        finally:
            os.close(out)
    finally:
        os.close(fd)

def dumps(value):
    # The image's python3 may be the minimal one, without json: this writes what the helper answers.
    if value is None: return 'null'
    if value is True: return 'true'
    if value is False: return 'false'
    if isinstance(value, (int, float)): return repr(value)
    if isinstance(value, str):
        return '"' + ''.join(c if c not in '"\\' and 0x20 <= ord(c) < 0x7f else '\\u%04x' % ord(c) if ord(c) < 0x10000 else
                             '\\u%04x\\u%04x' % (0xd800 + ((ord(c) - 0x10000) >> 10), 0xdc00 + ((ord(c) - 0x10000) & 0x3ff))
                             for c in value) + '"'
    if isinstance(value, dict): return '{' + ','.join(dumps(k) + ':' + dumps(v) for k, v in value.items()) + '}'
    return '[' + ','.join(dumps(v) for v in value) + ']'

def remove(rel):
    try: parent = parent_inside(rel)
    except Refused: return None
    path = parent + '/' + os.path.basename(rel)
    if os.path.lexists(path): remove_tree(path)
    return None

def discard(name):
    if '/' in name or name in ('', '.', '..'): raise Refused('"%s" is not a staging name' % name)
    if os.path.lexists(STAGING + '/' + name): remove_tree(STAGING + '/' + name)
    return None

def measure(max_bytes, max_files):
    seen = set()
    usage = {'bytes': 0, 'files': 0}
    def over():
        if max_bytes is not None and usage['bytes'] > max_bytes: usage['exceeded'] = 'disk'
        elif max_files is not None and usage['files'] > max_files: usage['exceeded'] = 'files'
        return 'exceeded' in usage
    def walk(directory, rel_dir):
        try: names = os.listdir(directory)
        except PermissionError:
            try:
                os.chmod(directory, os.lstat(directory).st_mode | 0o700); names = os.listdir(directory)
            except OSError as error:
                usage['unreadable'] = '%s (%s)' % (rel_dir or '.', error.__class__.__name__); return True
        except OSError: return False
        for name in names:
            path = directory + '/' + name
            try: st = os.lstat(path)
            except OSError: continue
            if st.st_ino not in seen:
                seen.add(st.st_ino)
                usage['files'] += 1
                usage['bytes'] += st.st_blocks * 512
                if over(): return True
            if stat.S_ISDIR(st.st_mode) and walk(path, name if rel_dir == '' else rel_dir + '/' + name): return True
        return False
    # The staging area is on the same volume and a command can write there too: it counts as the workspace's.
    walk(ROOT, '') or walk(STAGING, '../staging')
    if 'unreadable' in usage and 'exceeded' not in usage: usage['exceeded'] = 'disk'
    return usage

OPERATIONS = {
    'inspect': lambda a: inspect(a['path']),
    'resolve': lambda a: resolve(a['paths']),
    'list': lambda a: listing(a['folder'], a['maxDepth'], a['maxEntries']),
    'read': lambda a: read(a['path'], a['maxBytes']),
    'makeFolder': lambda a: make_folder(a['path'], a['exclusive']),
    'ensureFolders': lambda a: ensure_folders(a['paths']),
    'stage': lambda a: stage(),
    'place': lambda a: place(a['stage'], a['path'], a['keepFolder']),
    'copy': lambda a: copy(a['from'], a['to']),
    'remove': lambda a: remove(a['path']),
    'discard': lambda a: discard(a['stage']),
    'measure': lambda a: measure(a['maxBytes'], a['maxFiles']),
}

def answer(operation, arguments):
    try:
        if os.path.islink(ROOT) or not os.path.isdir(ROOT): raise Refused('the workspace folder was replaced')
        return {'ok': OPERATIONS[operation](arguments)}
    except Refused as refusal:
        return {'refused': str(refusal)}
    except Exception as error:
        return {'error': '%s: %s' % (error.__class__.__name__, error)}

# One answer per question, in order; each stands alone, so a refused one does not stop the others.
sys.stdout.write(dumps([answer(operation, arguments) for operation, arguments in ast.literal_eval(sys.argv[1])]))
`;
