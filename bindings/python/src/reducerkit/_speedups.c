/*
 * _speedups.c: an optional compiled call path for Store.send (CPython's limited API, so one
 * build serves CPython 3.11 and later). ctypes spends most of a send converting arguments and
 * going through libffi; these functions call rk_store_send directly. Without this module (no
 * compiler at install time, another Python implementation) the binding uses ctypes alone.
 *
 * The library is loaded by ctypes, not linked: each call gets the address of rk_store_send
 * (of the library that store belongs to) and the store's handle as Python ints.
 */
#ifndef Py_LIMITED_API
#define Py_LIMITED_API 0x030B0000
#endif
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

typedef int32_t (*rk_send_fn)(void *store, const char *action_json);

/* Reads (function address, handle, JSON bytes); 0 with an exception set on a bad argument. */
static int parse(PyObject *const *args, Py_ssize_t nargs, rk_send_fn *fn, void **store, const char **json) {
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "expected (function address, store handle, JSON bytes)");
        return 0;
    }
    void *address = PyLong_AsVoidPtr(args[0]);
    if (address == NULL) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "the function address is NULL");
        return 0;
    }
    *store = PyLong_AsVoidPtr(args[1]);
    if (*store == NULL && PyErr_Occurred()) return 0;
    *json = PyBytes_AsString(args[2]); /* NUL-terminated; a TypeError for anything but bytes */
    if (*json == NULL) return 0;
    *fn = (rk_send_fn)(uintptr_t)address;
    return 1;
}

/* send_keep_gil(fn, handle, json) -> status: for a store no Python callback can run from
   (the binding's choice, as for its PYFUNCTYPE path). */
static PyObject *send_keep_gil(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    rk_send_fn fn;
    void *store;
    const char *json;
    (void)self;
    if (!parse(args, nargs, &fn, &store, &json)) return NULL;
    return PyLong_FromLong((long)fn(store, json));
}

/* send_release_gil(fn, handle, json) -> status: releases the GIL during the call, as ctypes
   does. The bytes object stays alive: the caller holds a reference for the call. */
static PyObject *send_release_gil(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    rk_send_fn fn;
    void *store;
    const char *json;
    int32_t status;
    (void)self;
    if (!parse(args, nargs, &fn, &store, &json)) return NULL;
    Py_BEGIN_ALLOW_THREADS
    status = fn(store, json);
    Py_END_ALLOW_THREADS
    return PyLong_FromLong((long)status);
}

static PyMethodDef methods[] = {
    {"send_keep_gil", (PyCFunction)(void (*)(void))send_keep_gil, METH_FASTCALL,
     "rk_store_send(handle, json) through the function at the given address, keeping the GIL."},
    {"send_release_gil", (PyCFunction)(void (*)(void))send_release_gil, METH_FASTCALL,
     "rk_store_send(handle, json) through the function at the given address, without the GIL."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "reducerkit._speedups",
    "A compiled call path for Store.send (optional; the binding falls back to ctypes).", -1,
    methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__speedups(void) { return PyModule_Create(&module); }
