#!/usr/bin/env python3
"""Runs a script of `lockstep profile export` under a stand-in of the disassembler's API, then writes
what that disassembler's own export would hold afterwards, for `lockstep profile from-symbols` to read
back (the round trip of the symbols test).

  disassembler_stand_ins.py ghidra SCRIPT.py OUT.csv OUT.xml
      Ghidra's FlatProgramAPI (the calls the script makes, as Ghidra's API documents them); writes a
      Functions window CSV (Name, Location, Namespace, Function Signature) and an XML export's
      FUNCTIONS and SYMBOL_TABLE.
  disassembler_stand_ins.py ida SCRIPT.py OUT.map
      IDAPython's ida_funcs, ida_name and idc; writes an IDA .map (segment table, Publics by Value) and
      prints the segments' bases ("segment 1=0x00415000") for --segment.

The stand-ins check what the real APIs refuse (a name with spaces, a function named twice at one
address, a struct member past its struct, a nested struct that does not exist) and fail loudly.
"""
import sys
import types


def fail(msg):
    print("stand-in: " + msg, file=sys.stderr)
    sys.exit(1)


def check_name(name):
    if not name or any(c.isspace() for c in name):
        fail("a name Ghidra and IDA refuse: %r" % name)


# --- Ghidra ---------------------------------------------------------------------------------------
class Address(int):
    pass


class Namespace:
    def __init__(self, path):
        self.path = path  # "" for the global namespace


class Function:
    def __init__(self, entry, name):
        self.entry, self.name, self.namespace, self.comment = entry, name, Namespace(""), None

    def setName(self, name, source):
        check_name(name)
        if "::" in name:
            fail("setName with a namespace in the name: %r (Ghidra wants the namespace set apart)" % name)
        self.name = name

    def setParentNamespace(self, namespace):
        self.namespace = namespace

    def setComment(self, comment):
        self.comment = comment


class Structure:
    def __init__(self, category, name, length):
        self.name, self.length, self.fields = name, length, []

    def replaceAtOffset(self, offset, data_type, length, name, comment):
        if offset + length > self.length:
            fail("struct %s: field %s at 0x%x (%d bytes) past its %d bytes" % (self.name, name, offset, length, self.length))
        self.fields.append((offset, length, name))

    def getLength(self):
        return self.length


class Array:
    def __init__(self, element, count, element_length):
        self.length = count * element_length

    def getLength(self):
        return self.length


def run_ghidra(script, csv_out, xml_out):
    functions, labels, structs = {}, {}, {}

    class Manager:
        def addDataType(self, dt, handler):
            structs[dt.name] = dt
            return dt

    class Program:
        def getGlobalNamespace(self):
            return Namespace("")

        def getDataTypeManager(self):
            return Manager()

    def create_function(entry, name):
        if entry in functions:
            fail("createFunction where a function is: %08x" % entry)
        check_name(name)
        functions[entry] = Function(entry, name)
        return functions[entry]

    def create_label(address, name, primary, source):
        check_name(name)
        labels[int(address)] = name

    def namespace_hierarchy(path, root, program, source):
        for part in path.split("::"):
            check_name(part)
        return Namespace(path)

    byte = types.SimpleNamespace(dataType="byte")
    modules = {
        "ghidra": types.ModuleType("ghidra"),
        "ghidra.program": types.ModuleType("ghidra.program"),
        "ghidra.program.model": types.ModuleType("ghidra.program.model"),
        "ghidra.program.model.symbol": types.SimpleNamespace(SourceType=types.SimpleNamespace(USER_DEFINED="USER")),
        "ghidra.program.model.data": types.SimpleNamespace(
            ArrayDataType=Array, ByteDataType=byte, CategoryPath=lambda p: p,
            DataTypeConflictHandler=types.SimpleNamespace(REPLACE_HANDLER="replace"), StructureDataType=Structure),
        "ghidra.app": types.ModuleType("ghidra.app"),
        "ghidra.app.util": types.SimpleNamespace(NamespaceUtils=types.SimpleNamespace(
            createNamespaceHierarchy=namespace_hierarchy)),
    }
    sys.modules.update(modules)
    api = {
        "currentProgram": Program(), "toAddr": Address, "getFunctionAt": lambda a: functions.get(int(a)),
        "createFunction": create_function, "disassemble": lambda a: True, "createLabel": create_label,
        "clearListing": lambda a, b: None, "createData": lambda a, t: None,
        "printerr": lambda m: fail("the script reported: " + m),
    }
    exec(compile(open(script).read(), script, "exec"), api)
    with open(csv_out, "w") as f:
        f.write('"Name","Location","Namespace","Function Signature"\n')
        for entry in sorted(functions):
            fn = functions[entry]
            f.write('"%s","%08x","%s","undefined %s(void)"\n' % (fn.name, entry, fn.namespace.path or "Global", fn.name))
    with open(xml_out, "w") as f:
        f.write('<?xml version="1.0" standalone="yes"?>\n<PROGRAM NAME="original" EXE_FORMAT="Raw Binary">\n'
                '  <FUNCTIONS>\n')
        for entry in sorted(functions):
            fn = functions[entry]
            ns = ' NAMESPACE="%s"' % fn.namespace.path if fn.namespace.path else ""
            f.write('    <FUNCTION ENTRY_POINT="%08x" NAME="%s"%s LIBRARY_FUNCTION="n">\n    </FUNCTION>\n'
                    % (entry, fn.name, ns))
        f.write('  </FUNCTIONS>\n  <SYMBOL_TABLE>\n')
        for address in sorted(labels):
            f.write('    <SYMBOL ADDRESS="%08x" NAME="%s" TYPE="global" SOURCE_TYPE="USER_DEFINED" PRIMARY="y" />\n'
                    % (address, labels[address].replace("&", "&amp;").replace("<", "&lt;").replace('"', "&quot;")))
        f.write('  </SYMBOL_TABLE>\n</PROGRAM>\n')
    print("ghidra stand-in: %d functions, %d labels, %d structs" % (len(functions), len(labels), len(structs)))


# --- IDA ------------------------------------------------------------------------------------------
def run_ida(script, map_out):
    functions, names, structs = set(), {}, {}

    def add_func(ea):
        if ea in functions:
            fail("add_func where a function starts: %08x" % ea)
        functions.add(ea)
        return True

    def get_func(ea):
        return types.SimpleNamespace(start_ea=ea) if ea in functions else None

    def set_name(ea, name, flags):
        check_name(name)
        names[ea] = name
        return True

    def add_struc(index, name, is_union):
        check_name(name)
        structs[name] = {"id": len(structs) + 1, "members": []}
        return structs[name]["id"]

    def get_struc_id(name):
        return structs[name]["id"] if name in structs else ida_badaddr

    def add_struc_member(sid, name, offset, flag, typeid, nbytes):
        check_name(name)
        if typeid != -1 and typeid not in {s["id"] for s in structs.values()}:
            fail("add_struc_member of struct id %r, which is no struct" % typeid)
        return 0

    ida_badaddr = 0xFFFFFFFF
    sys.modules["ida_funcs"] = types.SimpleNamespace(get_func=get_func, add_func=add_func)
    sys.modules["ida_name"] = types.SimpleNamespace(set_name=set_name, SN_NOCHECK=1, SN_NOWARN=2, SN_FORCE=4)
    sys.modules["idc"] = types.SimpleNamespace(
        set_func_cmt=lambda ea, c, rep: True, get_struc_id=get_struc_id, BADADDR=ida_badaddr, add_struc=add_struc,
        add_struc_member=add_struc_member, FF_DATA=0x400, FF_BYTE=0, FF_STRUCT=0x60000000)
    exec(compile(open(script).read(), script, "exec"), {})
    data = {ea: n for ea, n in names.items() if ea not in functions}
    code_base = min(functions) & ~0xFFF
    data_base = (min(data) & ~0xFFF) if data else 0
    with open(map_out, "w") as f:
        f.write("\n Start         Length     Name                   Class\n")
        f.write(" 0001:00000000 %09XH .text                  CODE\n" % (max(functions) - code_base + 1))
        if data:
            f.write(" 0002:00000000 %09XH .data                  DATA\n" % (max(data) - data_base + 1))
        f.write("\n\n  Address         Publics by Value\n\n")
        for ea in sorted(functions):
            f.write(" 0001:%08X       %s\n" % (ea - code_base, names[ea]))
        for ea in sorted(data):
            f.write(" 0002:%08X       %s\n" % (ea - data_base, data[ea]))
        f.write("\nProgram entry point at 0001:00000000\n")
    print("segment 1=0x%08x" % code_base)
    if data:
        print("segment 2=0x%08x" % data_base)


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "ghidra":
        run_ghidra(*sys.argv[2:])
    elif len(sys.argv) == 4 and sys.argv[1] == "ida":
        run_ida(*sys.argv[2:])
    else:
        fail("usage: disassembler_stand_ins.py ghidra SCRIPT OUT.csv OUT.xml | ida SCRIPT OUT.map")
