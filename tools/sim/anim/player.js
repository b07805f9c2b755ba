/* mbs animation player: plays the motion that mbs-sim recorded (the JSON scene above: body
 * shapes in body coordinates, spring lines, and per frame t, energy, loop residual and every
 * body's position and quaternion) with three.js. URL hash "#t=1.5" opens paused at 1.5 s.
 * After each drawn frame the page records, for tests, the screen rectangles of the bodies
 * (data-boxes on <html>) and of the control panel (data-panel). */
(function () {
  "use strict";
  var scene0 = JSON.parse(document.getElementById("mbs-scene").textContent);
  var nb = scene0.bodies.length;            /* bodies, world included */
  var stride = 3 + 7 * (nb - 1);
  var frames = decodeFloats(scene0.frames);
  var nframe = scene0.nframe;
  var t0 = frames[0], t1 = frames[(nframe - 1) * stride];

  /* Float32Array from base64 of little-endian floats. */
  function decodeFloats(b64) {
    var bin = atob(b64), bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; ++i) bytes[i] = bin.charCodeAt(i);
    return new Float32Array(bytes.buffer);
  }
  function color(c) { return new THREE.Color(c[0], c[1], c[2]); }
  function material(c) {
    return new THREE.MeshStandardMaterial({ color: color(c), roughness: 0.55, metalness: 0.1,
      transparent: c[3] < 1, opacity: c[3] });
  }

  /* A mesh for one shape of the scene, placed in its body's coordinates. */
  function shapeMesh(s) {
    var g;
    if (s.k === "box") g = new THREE.BoxBufferGeometry(s.s[0], s.s[1], s.s[2]);
    else if (s.k === "cylinder") {
      g = new THREE.CylinderBufferGeometry(s.s[0], s.s[0], s.s[1], 24);
      g.rotateX(Math.PI / 2); /* three.js cylinders lie along y; URDF's along z */
    } else g = new THREE.SphereBufferGeometry(s.s[0], 24, 16);
    var m = new THREE.Mesh(g, material(s.c));
    m.position.set(s.p[0], s.p[1], s.p[2]);
    m.quaternion.set(s.q[0], s.q[1], s.q[2], s.q[3]);
    return m;
  }

  var renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
  renderer.setPixelRatio(window.devicePixelRatio || 1);
  renderer.setClearColor(0xf4f5f7);
  var view = document.getElementById("mbs-view");
  view.appendChild(renderer.domElement);
  var scene = new THREE.Scene();
  scene.add(new THREE.HemisphereLight(0xffffff, 0x8090a0, 0.75));
  var sun = new THREE.DirectionalLight(0xffffff, 0.7);
  sun.position.set(1, -2, 3);
  scene.add(sun);

  var L = scene0.scale;
  var groups = [];
  for (var b = 0; b < nb; ++b) { groups.push(new THREE.Group()); scene.add(groups[b]); }
  scene0.shapes.forEach(function (s) { groups[s.b].add(shapeMesh(s)); });
  /* mesh visuals read from STL files: triangles in the shape frame, flat shaded */
  (scene0.meshes || []).forEach(function (s) {
    var g = new THREE.BufferGeometry();
    g.setAttribute("position", new THREE.BufferAttribute(decodeFloats(s.v), 3));
    g.computeVertexNormals();
    var m = new THREE.Mesh(g, material(s.c));
    m.material.side = THREE.DoubleSide;
    m.position.set(s.p[0], s.p[1], s.p[2]);
    m.quaternion.set(s.q[0], s.q[1], s.q[2], s.q[3]);
    groups[s.b].add(m);
  });
  scene0.segments.forEach(function (s) {
    var g = new THREE.BufferGeometry();
    g.setAttribute("position", new THREE.Float32BufferAttribute(s.p0.concat(s.p1), 3));
    groups[s.b].add(new THREE.LineSegments(g, new THREE.LineBasicMaterial({ color: 0x555555 })));
  });
  /* the world frame: axes (x red, y green, z blue) and a grid in the x-y plane */
  var axes = new THREE.AxesHelper(0.4 * L);
  scene.add(axes);
  /* "up" is against gravity (z without gravity); the grid lies in the plane through the
     origin normal to it */
  var up = new THREE.Vector3().fromArray(scene0.up).normalize();
  var grid = new THREE.GridHelper(4 * L, 20, 0xb0b4ba, 0xd4d7db);
  grid.quaternion.setFromUnitVectors(new THREE.Vector3(0, 1, 0), up);
  scene.add(grid);
  /* springs: lines between two body points, moved every frame */
  var lineGeo = new THREE.BufferGeometry();
  var linePos = new Float32Array(6 * Math.max(1, scene0.lines.length));
  lineGeo.setAttribute("position", new THREE.BufferAttribute(linePos, 3));
  lineGeo.setDrawRange(0, 2 * scene0.lines.length);
  var springs = new THREE.LineSegments(lineGeo, new THREE.LineBasicMaterial({ color: 0x1a9850 }));
  scene.add(springs);

  var qa = new THREE.Quaternion(), qb = new THREE.Quaternion();
  /* camera on the bounding sphere of every body position over the motion and of the
     shapes at the start */
  var box = new THREE.Box3();
  pose(t0);
  for (var b0 = 0; b0 < nb; ++b0) box.union(new THREE.Box3().setFromObject(groups[b0]));
  for (var f = 0; f < nframe; ++f)
    for (b = 1; b < nb; ++b) {
      var o = f * stride + 3 + 7 * (b - 1);
      box.expandByPoint(new THREE.Vector3(frames[o], frames[o + 1], frames[o + 2]));
    }
  box.expandByScalar(0.1 * L);
  var sphere = box.getBoundingSphere(new THREE.Sphere());
  var camera = new THREE.PerspectiveCamera(40, 1, sphere.radius / 100, sphere.radius * 100);
  camera.up.copy(up);
  /* view from the front-right and above: h1 = x (or y) made horizontal, h2 = up x h1 */
  var h1 = new THREE.Vector3(1, 0, 0);
  if (Math.abs(h1.dot(up)) > 0.9) h1.set(0, 1, 0);
  h1.addScaledVector(up, -h1.dot(up)).normalize();
  var h2 = new THREE.Vector3().crossVectors(up, h1);
  var dir = h1.clone().addScaledVector(h2, -2.2).addScaledVector(up, 1.1).normalize();
  camera.position.copy(sphere.center).addScaledVector(dir, sphere.radius / Math.sin(Math.PI / 9));
  camera.lookAt(sphere.center);
  var ownOrbit = !THREE.OrbitControls || /[#&]orbit=own/.test(location.hash);
  var controls = ownOrbit ? new SmallOrbit(camera, renderer.domElement)
                          : new THREE.OrbitControls(camera, renderer.domElement);
  controls.target.copy(sphere.center);
  controls.update();

  /* Orbit camera for a three.js without examples/js/controls/OrbitControls.js: drag turns
     about the target (azimuth about camera.up, elevation kept off the poles), right or
     shift drag pans, the wheel zooms. */
  function SmallOrbit(cam, el) {
    var self = this, drag = null;
    this.target = new THREE.Vector3();
    this.update = function () { cam.lookAt(self.target); };
    el.addEventListener("contextmenu", function (e) { e.preventDefault(); });
    el.addEventListener("mousedown", function (e) {
      drag = { x: e.clientX, y: e.clientY, pan: e.button === 2 || e.shiftKey };
    });
    window.addEventListener("mouseup", function () { drag = null; });
    window.addEventListener("mousemove", function (e) {
      if (!drag) return;
      var dx = e.clientX - drag.x, dy = e.clientY - drag.y;
      drag.x = e.clientX; drag.y = e.clientY;
      var off = cam.position.clone().sub(self.target), dist = off.length();
      if (drag.pan) {
        var right = new THREE.Vector3().crossVectors(off, cam.up).normalize();
        var upv = new THREE.Vector3().crossVectors(right, off).normalize();
        var k = dist / el.clientHeight;
        var shift = right.multiplyScalar(dx * k).add(upv.multiplyScalar(dy * k));
        self.target.add(shift); cam.position.add(shift);
      } else {
        off.applyAxisAngle(cam.up, -dx * 0.008);
        var axis = new THREE.Vector3().crossVectors(cam.up, off).normalize();
        var elev = Math.asin(Math.max(-1, Math.min(1, off.dot(cam.up) / dist)));
        var turn = Math.max(-1.5 - elev, Math.min(1.5 - elev, dy * 0.008));
        off.applyAxisAngle(axis, turn);
        cam.position.copy(self.target).add(off);
      }
      self.update();
    });
    el.addEventListener("wheel", function (e) {
      e.preventDefault();
      var off = cam.position.clone().sub(self.target).multiplyScalar(e.deltaY > 0 ? 1.1 : 1 / 1.1);
      cam.position.copy(self.target).add(off);
      self.update();
    }, { passive: false });
  }

  /* Poses at time t: linear in position, slerp in rotation between the recorded frames. */
  function pose(t) {
    var lo = 0, hi = nframe - 1;
    while (hi - lo > 1) { var mid = (lo + hi) >> 1; if (frames[mid * stride] <= t) lo = mid; else hi = mid; }
    var a = lo * stride, c = hi * stride, ta = frames[a], tc = frames[c];
    var w = tc > ta ? Math.min(1, Math.max(0, (t - ta) / (tc - ta))) : 0;
    for (var b = 1; b < nb; ++b) {
      var oa = a + 3 + 7 * (b - 1), oc = c + 3 + 7 * (b - 1), g = groups[b];
      g.position.set(frames[oa] + w * (frames[oc] - frames[oa]),
                     frames[oa + 1] + w * (frames[oc + 1] - frames[oa + 1]),
                     frames[oa + 2] + w * (frames[oc + 2] - frames[oa + 2]));
      qa.set(frames[oa + 3], frames[oa + 4], frames[oa + 5], frames[oa + 6]);
      qb.set(frames[oc + 3], frames[oc + 4], frames[oc + 5], frames[oc + 6]);
      g.quaternion.copy(qa).slerp(qb, w);
      g.updateMatrixWorld(true);
    }
    var p = new THREE.Vector3();
    scene0.lines.forEach(function (l, i) {
      p.fromArray(l.pa).applyMatrix4(groups[l.a].matrixWorld).toArray(linePos, 6 * i);
      p.fromArray(l.pb).applyMatrix4(groups[l.b].matrixWorld).toArray(linePos, 6 * i + 3);
    });
    lineGeo.attributes.position.needsUpdate = true;
    return w < 0.5 ? a : c;
  }

  var playBtn = document.getElementById("mbs-play"), speedSel = document.getElementById("mbs-speed");
  var slider = document.getElementById("mbs-time"), readout = document.getElementById("mbs-readout");
  document.getElementById("mbs-title").textContent = scene0.title;
  slider.min = t0; slider.max = t1;
  var state = { t: t0, playing: true, last: null };
  var hash = /[#&]t=([0-9.eE+-]+)/.exec(location.hash);
  if (hash) { state.t = Math.min(t1, Math.max(t0, parseFloat(hash[1]))); state.playing = false; }

  function setPlaying(on) { state.playing = on; playBtn.textContent = on ? "pause" : "play"; }
  setPlaying(state.playing);
  playBtn.addEventListener("click", function () { setPlaying(!state.playing); });
  window.addEventListener("keydown", function (e) {
    if (e.code === "Space") { setPlaying(!state.playing); e.preventDefault(); }
  });
  slider.addEventListener("input", function () { state.t = parseFloat(slider.value); setPlaying(false); });

  function fmt(x) { return (x >= 0 ? " " : "") + x.toExponential(3); }
  /* Screen rectangles of the bodies and of the panel, for the tests. */
  function report() {
    var w = renderer.domElement.clientWidth, h = renderer.domElement.clientHeight, rects = [];
    lineGeo.computeBoundingBox();
    for (var b = 1; b <= nb; ++b) { /* the bodies, then the spring lines */
      var bb = b < nb ? new THREE.Box3().setFromObject(groups[b])
                      : (scene0.lines.length ? lineGeo.boundingBox.clone() : new THREE.Box3());
      if (bb.isEmpty()) continue;
      var x0 = 1e9, y0 = 1e9, x1 = -1e9, y1 = -1e9;
      for (var k = 0; k < 8; ++k) {
        var v = new THREE.Vector3(k & 1 ? bb.max.x : bb.min.x, k & 2 ? bb.max.y : bb.min.y,
                                  k & 4 ? bb.max.z : bb.min.z).project(camera);
        var sx = (v.x + 1) / 2 * w, sy = (1 - v.y) / 2 * h;
        x0 = Math.min(x0, sx); x1 = Math.max(x1, sx); y0 = Math.min(y0, sy); y1 = Math.max(y1, sy);
      }
      rects.push([Math.round(x0), Math.round(y0), Math.round(x1), Math.round(y1)]);
    }
    var r = document.getElementById("mbs-panel").getBoundingClientRect();
    var root = document.documentElement;
    root.setAttribute("data-boxes", JSON.stringify(rects));
    root.setAttribute("data-panel", JSON.stringify([r.left, r.top, r.right, r.bottom].map(Math.round)));
    root.setAttribute("data-time", state.t.toFixed(6));
    root.setAttribute("data-state", "ready");
  }

  function resize() {
    var w = view.clientWidth || window.innerWidth, h = view.clientHeight || window.innerHeight;
    renderer.setSize(w, h);
    camera.aspect = w / h;
    camera.updateProjectionMatrix();
  }
  window.addEventListener("resize", resize);
  resize();

  function frame(now) {
    if (state.playing && state.last !== null) {
      state.t += (now - state.last) / 1000 * parseFloat(speedSel.value);
      if (state.t > t1) state.t = t0 + (state.t - t1) % Math.max(1e-9, t1 - t0);
    }
    state.last = now;
    var o = pose(state.t);
    slider.value = state.t;
    readout.textContent = "t        " + state.t.toFixed(3) + " s of " + t1.toFixed(3) +
      "\nenergy   " + fmt(frames[o + 1]) + " J  (dE " + fmt(frames[o + 1] - frames[1]) + ")" +
      (scene0.hasResidual ? "\nresidual " + fmt(frames[o + 2]) + " (loop closure)" : "");
    renderer.render(scene, camera);
    report();
    if (wantSelfTest) { wantSelfTest = false; selfTest(); }
    requestAnimationFrame(frame);
  }
  /* "#...&selftest": drag and wheel on the canvas must orbit (distance to the target kept,
     camera moved) and zoom (distance changed); the verdict goes to data-selftest. */
  function selfTest() {
    var el = renderer.domElement, cx = el.clientWidth / 2, cy = el.clientHeight / 2;
    function mouse(type, x, y) {
      el.dispatchEvent(new MouseEvent(type, { bubbles: true, cancelable: true, clientX: x,
        clientY: y, button: 0, buttons: 1 }));
    }
    var p0 = camera.position.clone(), d0 = p0.distanceTo(controls.target);
    mouse("mousedown", cx, cy); mouse("mousemove", cx + 60, cy + 25); mouse("mouseup", cx + 60, cy + 25);
    var d1 = camera.position.distanceTo(controls.target), moved = camera.position.distanceTo(p0);
    el.dispatchEvent(new WheelEvent("wheel", { bubbles: true, cancelable: true, deltaY: 120,
      deltaMode: 0, clientX: cx, clientY: cy }));
    var d2 = camera.position.distanceTo(controls.target);
    var ok = moved > 1e-2 * d0 && Math.abs(d1 - d0) < 1e-6 * d0 && Math.abs(d2 - d1) > 1e-2 * d1;
    document.documentElement.setAttribute("data-selftest", (ok ? "ok " : "fail ") +
      (ownOrbit ? "own" : "OrbitControls") + " moved " + moved.toPrecision(3) + " d " +
      d0.toPrecision(6) + " " + d1.toPrecision(6) + " " + d2.toPrecision(6));
  }
  var wantSelfTest = /[#&]selftest/.test(location.hash);

  window.mbsPlayer = {
    setTime: function (t) { state.t = t; setPlaying(false); },
    play: function () { setPlaying(true); }, pause: function () { setPlaying(false); }
  };
  requestAnimationFrame(frame);
})();
