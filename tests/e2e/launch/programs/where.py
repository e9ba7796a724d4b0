"""where.allowed(): this process's Cpus_allowed_list ("0-1"), the CPUs the
test programs here report they ran on."""


def allowed():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("Cpus_allowed_list:"):
                return line.split()[1]
    return "?"
