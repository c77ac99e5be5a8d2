/* The hot path of passnet.passes.launch.CachedKernel in one C call: the specialisation key of
 * the arguments, the lookup of the compiled kernel and its launch through PyTorch's static CUDA
 * launcher. In Python that work costs more host time than a whole eager op (docs/benchmarks.md).
 *
 * Plain CPython API only (no torch or CUDA headers), so it builds wherever Triton can build its
 * own launcher. Built and loaded by passnet/passes/native_launch.py; everything it declines
 * (a miss, an argument of another type, a callable grid) falls back to the Python path.
 *
 * Key: one byte string, per positional argument
 *   tensor  'T' + its dtype object's address (dtypes are interned singletons) + 16-byte alignment
 *   int     'I' + flags (== 1, divisible by 16, fits in int32)
 *   float   'F';  None 'N';  bool 'B' + value
 * then 'D' + the device index of the first tensor. With keyword arguments (constexprs, launch
 * options) the key is the tuple (bytes, name1, value1, name2, value2, ...).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define KEY_MAX 1024
#define N_INDEX 64

static PyObject *tensor_type = NULL; /* torch.Tensor */
static PyObject *stream_fn = NULL;   /* torch._C._cuda_getCurrentRawStream */
static PyObject *s_data_ptr, *s_dtype, *s_get_device;
static PyObject *index_objs[N_INDEX];
/* launches made here (or skipped: see ``skip``), for the integrity runtime's count: counting in
 * C keeps a Python frame out of every launch a timed call makes */
static unsigned long long n_launched = 0;
static int skip_launches = 0; /* the runtime's ghost replay: count, do not launch */

/* 1: key built; 0: declined (unsupported argument, no CUDA tensor is not a decline); -1: error.
 * *index is the device index of the first tensor, -1 when there is none or it is on the CPU. */
static int build_key(PyObject *args, PyObject *kwargs, PyObject **key, long *index) {
    unsigned char buf[KEY_MAX];
    Py_ssize_t len = 0, n = PyTuple_GET_SIZE(args);
    *index = -2;
    if (tensor_type == NULL || n * 10 + 4 > KEY_MAX)
        return 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *a = PyTuple_GET_ITEM(args, i);
        if (PyLong_CheckExact(a)) {
            int overflow = 0;
            long long v = PyLong_AsLongLongAndOverflow(a, &overflow);
            if (overflow)
                return 0; /* beyond int64: the Python key handles it */
            if (v == -1 && PyErr_Occurred())
                return -1;
            buf[len++] = 'I';
            buf[len++] = (unsigned char)((v == 1) | (((v & 15) == 0) << 1) |
                                         ((v >= INT32_MIN && v <= INT32_MAX) << 2));
        } else if (PyObject_TypeCheck(a, (PyTypeObject *)tensor_type)) {
            PyObject *dtype = PyObject_GetAttr(a, s_dtype);
            if (dtype == NULL)
                return -1;
            uintptr_t d = (uintptr_t)dtype;
            Py_DECREF(dtype); /* interned: torch keeps every dtype object alive */
            PyObject *ptr = PyObject_CallMethodNoArgs(a, s_data_ptr);
            if (ptr == NULL)
                return -1;
            unsigned long long p = PyLong_AsUnsignedLongLongMask(ptr);
            Py_DECREF(ptr);
            if (p == (unsigned long long)-1 && PyErr_Occurred())
                return -1;
            if (*index == -2) {
                PyObject *dev = PyObject_CallMethodNoArgs(a, s_get_device);
                if (dev == NULL)
                    return -1;
                *index = PyLong_AsLong(dev);
                Py_DECREF(dev);
                if (*index == -1 && PyErr_Occurred())
                    return -1;
            }
            buf[len++] = 'T';
            memcpy(buf + len, &d, sizeof d);
            len += sizeof d;
            buf[len++] = (unsigned char)((p & 15) == 0);
        } else if (PyFloat_CheckExact(a)) {
            buf[len++] = 'F';
        } else if (a == Py_None) {
            buf[len++] = 'N';
        } else if (PyBool_Check(a)) {
            buf[len++] = 'B';
            buf[len++] = (unsigned char)(a == Py_True);
        } else {
            return 0;
        }
    }
    if (*index == -2)
        *index = -1;
    if (*index >= 255)
        return 0;
    buf[len++] = 'D';
    buf[len++] = (unsigned char)(*index + 1);
    PyObject *bytes = PyBytes_FromStringAndSize((const char *)buf, len);
    if (bytes == NULL)
        return -1;
    Py_ssize_t nkw = kwargs == NULL || kwargs == Py_None ? 0 : PyDict_GET_SIZE(kwargs);
    if (nkw == 0) {
        *key = bytes;
        return 1;
    }
    PyObject *tuple = PyTuple_New(1 + 2 * nkw);
    if (tuple == NULL) {
        Py_DECREF(bytes);
        return -1;
    }
    PyTuple_SET_ITEM(tuple, 0, bytes);
    Py_ssize_t pos = 0, j = 1;
    PyObject *k, *v;
    while (PyDict_Next(kwargs, &pos, &k, &v)) {
        Py_INCREF(k);
        Py_INCREF(v);
        PyTuple_SET_ITEM(tuple, j++, k);
        PyTuple_SET_ITEM(tuple, j++, v);
    }
    *key = tuple;
    return 1;
}

/* key(args: tuple, kwargs: dict | None) -> (key, device_index) | None */
static PyObject *nl_key(PyObject *self, PyObject *const *argv, Py_ssize_t n) {
    if (n != 2 || !PyTuple_Check(argv[0]) || (argv[1] != Py_None && !PyDict_Check(argv[1]))) {
        PyErr_SetString(PyExc_TypeError, "key(args: tuple, kwargs: dict | None)");
        return NULL;
    }
    PyObject *key = NULL;
    long index;
    int ok = build_key(argv[0], argv[1], &key, &index);
    if (ok < 0)
        return NULL;
    if (ok == 0)
        Py_RETURN_NONE;
    PyObject *out = Py_BuildValue("(Nl)", key, index);
    return out;
}

static PyObject *current_stream(long index) {
    PyObject *obj = index < N_INDEX ? index_objs[index] : NULL;
    if (obj == NULL) {
        PyObject *fresh = PyLong_FromLong(index);
        if (fresh == NULL)
            return NULL;
        PyObject *out = PyObject_CallOneArg(stream_fn, fresh);
        Py_DECREF(fresh);
        return out;
    }
    return PyObject_CallOneArg(stream_fn, obj);
}

/* launch(table: dict, grid, args: tuple, kwargs: dict) -> bool: True when it launched; False
 * when the Python path must (no entry yet, an argument it does not key, a grid it does not
 * read, no CUDA tensor). A table entry is either the tuple (c_launch, function, num_warps,
 * shared, arg_types), called as c_launch(function, gx, gy, gz, num_warps, shared, arg_types,
 * args, stream), or any callable, called as entry(gx, gy, gz, stream, args, kwargs). */
static PyObject *nl_launch(PyObject *self, PyObject *const *argv, Py_ssize_t n) {
    if (n != 4 || !PyDict_Check(argv[0]) || !PyTuple_Check(argv[2])) {
        PyErr_SetString(PyExc_TypeError, "launch(table: dict, grid, args: tuple, kwargs)");
        return NULL;
    }
    PyObject *table = argv[0], *grid = argv[1], *args = argv[2], *kwargs = argv[3];
    if (stream_fn == NULL)
        Py_RETURN_FALSE;
    PyObject *g[3] = {NULL, NULL, NULL};
    Py_ssize_t ng;
    if (PyTuple_Check(grid)) { /* a subclass too: its items are the tuple's (a frozen plan) */
        ng = PyTuple_GET_SIZE(grid);
        for (Py_ssize_t i = 0; i < ng && i < 3; i++)
            g[i] = PyTuple_GET_ITEM(grid, i);
    } else if (PyList_CheckExact(grid)) {
        ng = PyList_GET_SIZE(grid);
        for (Py_ssize_t i = 0; i < ng && i < 3; i++)
            g[i] = PyList_GET_ITEM(grid, i);
    } else {
        Py_RETURN_FALSE;
    }
    if (ng < 1 || ng > 3)
        Py_RETURN_FALSE;
    PyObject *one = index_objs[1];
    for (int i = 0; i < 3; i++) {
        if (g[i] == NULL)
            g[i] = one;
        else if (!PyLong_CheckExact(g[i]))
            Py_RETURN_FALSE;
    }
    PyObject *key = NULL;
    long index;
    int ok = build_key(args, kwargs, &key, &index);
    if (ok < 0)
        return NULL;
    if (ok == 0)
        Py_RETURN_FALSE;
    if (index < 0) {
        Py_DECREF(key);
        Py_RETURN_FALSE;
    }
    PyObject *entry = PyDict_GetItemWithError(table, key); /* borrowed */
    Py_DECREF(key);
    if (entry == NULL) {
        if (PyErr_Occurred())
            return NULL;
        Py_RETURN_FALSE;
    }
    if (skip_launches) {
        n_launched++;
        Py_RETURN_TRUE;
    }
    Py_INCREF(entry); /* the table may change while the launch runs Python code */
    PyObject *stream = current_stream(index);
    if (stream == NULL) {
        Py_DECREF(entry);
        return NULL;
    }
    PyObject *res;
    if (PyTuple_CheckExact(entry) && PyTuple_GET_SIZE(entry) == 5) {
        PyObject *stack[9] = {PyTuple_GET_ITEM(entry, 1), g[0], g[1], g[2],
                              PyTuple_GET_ITEM(entry, 2), PyTuple_GET_ITEM(entry, 3),
                              PyTuple_GET_ITEM(entry, 4), args, stream};
        res = PyObject_Vectorcall(PyTuple_GET_ITEM(entry, 0), stack, 9, NULL);
    } else {
        PyObject *stack[6] = {g[0], g[1], g[2], stream, args, kwargs};
        res = PyObject_Vectorcall(entry, stack, 6, NULL);
    }
    Py_DECREF(stream);
    Py_DECREF(entry);
    if (res == NULL)
        return NULL;
    Py_DECREF(res);
    n_launched++;
    Py_RETURN_TRUE;
}

/* launched() -> int: the launches made (or skipped) here in this process's life. */
static PyObject *nl_launched(PyObject *self, PyObject *const *argv, Py_ssize_t n) {
    return PyLong_FromUnsignedLongLong(n_launched);
}

/* skip(flag) -> bool: from now on count launches without making them (flag true) or make
 * them again; returns the previous setting. */
static PyObject *nl_skip(PyObject *self, PyObject *const *argv, Py_ssize_t n) {
    if (n != 1) {
        PyErr_SetString(PyExc_TypeError, "skip(flag: bool)");
        return NULL;
    }
    int flag = PyObject_IsTrue(argv[0]);
    if (flag < 0)
        return NULL;
    int before = skip_launches;
    skip_launches = flag;
    return PyBool_FromLong(before);
}

/* init(tensor_type, stream_fn | None): what a key and a launch need from torch. */
static PyObject *nl_init(PyObject *self, PyObject *const *argv, Py_ssize_t n) {
    if (n != 2 || !PyType_Check(argv[0])) {
        PyErr_SetString(PyExc_TypeError, "init(tensor_type: type, stream_fn: callable | None)");
        return NULL;
    }
    Py_INCREF(argv[0]);
    Py_XSETREF(tensor_type, argv[0]);
    if (argv[1] == Py_None) {
        Py_CLEAR(stream_fn);
    } else {
        Py_INCREF(argv[1]);
        Py_XSETREF(stream_fn, argv[1]);
    }
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"key", (PyCFunction)(void (*)(void))nl_key, METH_FASTCALL,
     "key(args, kwargs) -> (key, device_index) | None"},
    {"launch", (PyCFunction)(void (*)(void))nl_launch, METH_FASTCALL,
     "launch(table, grid, args, kwargs) -> bool"},
    {"init", (PyCFunction)(void (*)(void))nl_init, METH_FASTCALL,
     "init(tensor_type, stream_fn)"},
    {"launched", (PyCFunction)(void (*)(void))nl_launched, METH_FASTCALL,
     "launched() -> int"},
    {"skip", (PyCFunction)(void (*)(void))nl_skip, METH_FASTCALL, "skip(flag) -> bool"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_passnet_native_launch", NULL, -1,
                                    methods};

PyMODINIT_FUNC PyInit__passnet_native_launch(void) {
    s_data_ptr = PyUnicode_InternFromString("data_ptr");
    s_dtype = PyUnicode_InternFromString("dtype");
    s_get_device = PyUnicode_InternFromString("get_device");
    if (!s_data_ptr || !s_dtype || !s_get_device)
        return NULL;
    for (long i = 0; i < N_INDEX; i++) {
        index_objs[i] = PyLong_FromLong(i);
        if (index_objs[i] == NULL)
            return NULL;
    }
    return PyModule_Create(&module);
}
